"""Which Pulumi CLI the main command runs: the user's own, with the user's PULUMI_HOME, login and
plugins, when one recent enough is on PATH; otherwise the CLI ``scripts/install-tools`` builds
from Go modules (the fallback for machines without one: minutes, once); with neither, a
message saying what to install."""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from importlib.metadata import version

import components
from components.registration import journal

CHECKOUT = pathlib.Path(components.__file__).resolve().parent.parent
"""The folder this library was loaded from: a clone of the project (which holds
``scripts/install-tools``), or the site-packages of an installed library."""
CLONE = CHECKOUT if (CHECKOUT / "pyproject.toml").is_file() else None
"""The clone the library runs from, if it runs from one (not installed): the processes this
one starts (fleet workers, the dynamic provider's host) import it from there."""


class ToolsUnavailable(RuntimeError):
    pass


def installed(script: str, what: str) -> pathlib.Path:
    """Runs ``scripts/<script>`` (builds on first use, seconds when cached); its bin folder. Its
    progress (what it builds, how long that takes once, a line a minute) reaches the user's
    terminal as it comes: a first build takes many minutes."""
    if CLONE is None or not (CLONE / "scripts" / script).is_file():
        raise ToolsUnavailable(f"{what} can be built only from a clone of the project (scripts/{script}): install them")
    if shutil.which("go") is None:
        raise ToolsUnavailable(f"Go is not installed: {what} cannot be built")
    out = subprocess.run(["bash", str(CLONE / "scripts" / script)], stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        raise ToolsUnavailable(f"scripts/{script} failed (its output is above)")
    return pathlib.Path(out.stdout.strip().splitlines()[-1])


def tools_bin() -> pathlib.Path:
    return installed("install-tools", "the Pulumi CLI and Kubernetes plugin")


MINIMUM = (3, 274, 0)
MINIMUM_TEXT = ".".join(map(str, MINIMUM))
INSTALL_HINT = (
    f"no Pulumi CLI v{MINIMUM_TEXT} or newer on PATH, and no Go to build one: install the Pulumi CLI "
    "(https://www.pulumi.com/docs/iac/download-install/), then run this again"
)


@dataclass(frozen=True)
class Cli:
    bin_dir: pathlib.Path
    """The folder of the ``pulumi`` binary."""
    pulumi_home: str | None
    """The PULUMI_HOME to use; None: the user's, left as it is."""
    built: bool
    version: tuple[int, ...] | None = None
    """Its version when already read (``pulumi version``), else None."""


def cli_version(pulumi: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([pulumi, "version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v?(\d+)\.(\d+)\.(\d+)", out.strip())
    return tuple(int(part) for part in found.groups()) if found else None


def ensure_kubernetes_plugin(pulumi: str) -> None:
    """The Kubernetes plugin of the version the installed SDK asks for, in the user's plugin
    cache: installed with the CLI (``pulumi plugin install``) when missing."""
    wanted = version("pulumi_kubernetes")
    listed = subprocess.run([pulumi, "plugin", "ls", "--json"], capture_output=True, text=True)
    plugins = json.loads(listed.stdout or "[]") if listed.returncode == 0 else []
    if any(p.get("name") == "kubernetes" and p.get("kind") == "resource" and p.get("version") == wanted for p in plugins):
        return
    done = subprocess.run([pulumi, "plugin", "install", "resource", "kubernetes", f"v{wanted}"], capture_output=True, text=True)
    if done.returncode != 0:
        raise ToolsUnavailable(f"pulumi plugin install resource kubernetes v{wanted} failed:\n{done.stderr[-2000:]}")


def find_cli() -> Cli:
    """The user's CLI when it is recent enough, else the built one; ``ToolsUnavailable`` with
    ``INSTALL_HINT`` when neither is possible."""
    pulumi = shutil.which("pulumi")
    found = cli_version(pulumi) if pulumi else None
    if pulumi and found is not None and found >= MINIMUM:
        ensure_kubernetes_plugin(pulumi)
        return Cli(pathlib.Path(pulumi).resolve().parent, None, False, found)
    if shutil.which("go") is None or CLONE is None:
        raise ToolsUnavailable(INSTALL_HINT)
    bin_dir = tools_bin()
    return Cli(bin_dir, str(bin_dir.parent / "pulumi-home"), True)


def logged_in_backend(cli: Cli) -> str | None:
    """The backend the user's own CLI is logged in to (``pulumi login``), from the user's
    ``PULUMI_HOME``; None for the built CLI, or when not logged in."""
    return None if cli.built else journal.logged_in_backend()
