"""The package owns its runtime (#31): what the Python language host does to a Python plugin's
folder on ``pulumi package add`` or ``get-schema`` (``scripts/sdkgen/venvprobe``: the SDK's own
toolchain code, which runs ``python -m venv`` on the plugin's ``virtualenv`` with the first
``python3`` on PATH) never touches the checkout's own ``.venv``. With the setting the package
had before (``../../.venv``), it rewrote that virtualenv to another interpreter and failed."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from ..conftest import ROOT, unavailable

PACKAGE = ROOT / "components" / "package"
BEFORE = "runtime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: ../../.venv\n"


@pytest.fixture(scope="module")
def venvprobe(tmp_path_factory) -> pathlib.Path:
    if shutil.which("go") is None:
        unavailable("the language host's virtualenv step", "go is not installed")
    out = tmp_path_factory.mktemp("probe") / "venvprobe"
    done = subprocess.run(
        ["go", "build", "-o", str(out), "./venvprobe"], cwd=ROOT / "scripts" / "sdkgen", capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def checkout(tmp_path: pathlib.Path, plugin_file: str) -> pathlib.Path:
    """A checkout's layout: its own ``.venv`` (made by this interpreter) and the package folder."""
    root = tmp_path / "checkout"
    (root / "components" / "package").mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    (root / "components" / "package" / "PulumiPlugin.yaml").write_text(plugin_file)
    (root / "components" / "package" / "requirements.txt").write_text("")  # the step, not a minute of installs
    return root


def host_step(venvprobe: pathlib.Path, root: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """The host's step with another interpreter first on PATH (the system's python3)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root)}
    return subprocess.run([str(venvprobe), str(root / "components" / "package")], env=env, capture_output=True, text=True)


def test_before_the_host_rewrote_the_checkouts_virtualenv(venvprobe, tmp_path):
    root = checkout(tmp_path, BEFORE)
    before = (root / ".venv" / "pyvenv.cfg").read_text()
    done = host_step(venvprobe, root)
    assert f"virtualenv: {root / '.venv'}" in done.stdout
    assert (root / ".venv" / "pyvenv.cfg").read_text() != before, "the checkout's virtualenv was rewritten"


def test_the_package_uses_a_virtualenv_of_its_own_and_leaves_the_checkouts_alone(venvprobe, tmp_path):
    root = checkout(tmp_path, (PACKAGE / "PulumiPlugin.yaml").read_text())
    before = {p.name: p.read_bytes() for p in (root / ".venv").rglob("*") if p.is_file()}
    done = host_step(venvprobe, root)
    assert f"virtualenv: {root / 'components' / 'package' / 'venv'}" in done.stdout, done.stdout + done.stderr
    assert {p.name: p.read_bytes() for p in (root / ".venv").rglob("*") if p.is_file()} == before
    assert (root / "components" / "package" / "venv").is_dir()


def test_the_packages_virtualenv_is_ignored_and_its_requirements_are_the_programs_and_the_checkout():
    assert "components/package/venv/" in (ROOT / ".gitignore").read_text().splitlines()
    lines = [line for line in (PACKAGE / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert lines == ["-r ../../requirements.txt", "-e ../.."]


def test_the_package_serves_from_the_command_line_the_host_runs_without_a_sys_path_edit(tmp_path):
    """The Python language host's ``RunPlugin`` for a folder with ``__main__.py``: the virtualenv's
    python with the folder as the script and the engine's address, in the consumer's folder, with
    no PYTHONPATH (sys.path: the folder, then the virtualenv). This interpreter stands in for the
    package's virtualenv: both hold this checkout installed editable (``make venv``; ``-e ../..``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, str(PACKAGE), "127.0.0.1:1"]
    with subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as served:
        try:
            port = served.stdout.readline().strip() if served.stdout else ""
        finally:
            served.kill()
        assert port.isdigit(), served.stderr.read()[-3000:] if served.stderr else ""
