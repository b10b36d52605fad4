"""Where the Pulumi engine's tools are, and the environment the engine needs to run them."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


class ToolsUnavailable(RuntimeError):
    pass


def tools_bin() -> pathlib.Path:
    """Builds the tools on first use (scripts/install-tools), then returns their folder."""
    if shutil.which("go") is None:
        raise ToolsUnavailable("Go is not installed: the Pulumi CLI and Kubernetes plugin cannot be built")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "install-tools")], capture_output=True, text=True)
    if out.returncode != 0:
        raise ToolsUnavailable(f"scripts/install-tools failed:\n{out.stderr[-3000:]}")
    return pathlib.Path(out.stdout.strip().splitlines()[-1])


def engine_env(bin_dir: pathlib.Path, passphrase: str) -> dict[str, str]:
    """PATH with the tools first and this virtualenv's python next (the dynamic-provider
    helper runs ``python -m pulumi.dynamic``), and ``components`` importable by that python."""
    venv_bin = pathlib.Path(sys.executable).parent
    return {
        "PATH": os.pathsep.join([str(bin_dir), str(venv_bin), os.environ.get("PATH", "")]),
        "PULUMI_CONFIG_PASSPHRASE": passphrase,
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PULUMI_HOME": str(bin_dir.parent / "pulumi-home"),
        "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p),
    }
