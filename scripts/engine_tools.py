"""Where the Pulumi engine's tools are, and the environment the engine needs to run them."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]


class ToolsUnavailable(RuntimeError):
    pass


def installed(script: str, what: str) -> pathlib.Path:
    """Runs ``scripts/<script>`` (builds on first use, seconds when cached); its bin folder. Its
    progress (what it builds, how long that takes once, a line a minute) reaches the user's
    terminal as it comes: a first build takes many minutes."""
    if shutil.which("go") is None:
        raise ToolsUnavailable(f"Go is not installed: {what} cannot be built")
    out = subprocess.run(["bash", str(ROOT / "scripts" / script)], stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise ToolsUnavailable(f"scripts/{script} failed (its output is above)")
    return pathlib.Path(out.stdout.strip().splitlines()[-1])


def tools_bin() -> pathlib.Path:
    return installed("install-tools", "the Pulumi CLI and Kubernetes plugin")


TOOLS_HOME = "tools"


def engine_env(bin_dir: pathlib.Path, passphrase: str, pulumi_home: str | None = TOOLS_HOME) -> dict[str, str]:
    """PATH with the CLI's folder first and this virtualenv's python next (the program's
    dynamic-provider helper runs ``python -m pulumi.dynamic``), and ``components`` importable
    by that python. ``pulumi_home``: the built tools' (default), a folder, or None to leave the
    user's PULUMI_HOME as it is."""
    venv_bin = pathlib.Path(sys.executable).parent
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(venv_bin), os.environ.get("PATH", "")]),
        "PULUMI_CONFIG_PASSPHRASE": passphrase,
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p),
    }
    if pulumi_home is not None:
        env["PULUMI_HOME"] = str(bin_dir.parent / "pulumi-home") if pulumi_home == TOOLS_HOME else pulumi_home
    return env


def create_inline_stack(
    name: str, program: Callable[[], None], work_dir: pathlib.Path, env: dict[str, str], command: Any = None
) -> Any:
    """A new stack of the ``connectors`` project running ``program`` inline, in ``work_dir``,
    with ``env`` (its ``PULUMI_BACKEND_URL`` chooses the state) and passphrase secrets."""
    from pulumi import automation as auto

    return auto.create_stack(
        name,
        project_name="connectors",
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=str(work_dir),
            pulumi_home=env.get("PULUMI_HOME"),
            pulumi_command=command,
            env_vars=env,
            project_settings=auto.ProjectSettings(name="connectors", runtime="python"),
            secrets_provider="passphrase",
        ),
    )
