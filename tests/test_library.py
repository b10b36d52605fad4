"""The component as a library others install: the wheel carries every module, its requirements
are ranges that the program's pins satisfy, and every public name imports in a fresh
virtualenv with no repository on ``sys.path``."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib

from .conftest import ROOT

PROBE = """
import json, sys, components
names = {n: type(getattr(components, n)).__name__ for n in components.__all__}
import components.package.package_provider, components.registration.provider
print(json.dumps({"file": components.__file__, "names": names, "path": sys.path}))
"""


def test_the_wheel_installs_and_imports_alone(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copytree(ROOT / "components", source / "components", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(source)]
    subprocess.run(build, check=True, capture_output=True)
    (wheel,) = wheels.glob("connectors_component-*.whl")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True
    )
    # The dependencies come from this environment (no network needed); the repository does not.
    (tmp_path / "venv-site").write_text(site.stdout.strip())
    with open(f"{site.stdout.strip()}/dependencies.pth", "w") as pth:
        pth.write(sysconfig.get_path("purelib") + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)]
    subprocess.run(install, check=True, capture_output=True)

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path, env=env, check=True)
    probe = json.loads(out.stdout)
    assert probe["file"].startswith(str(venv)), probe["file"]
    assert not any(str(ROOT) == p or (p.startswith(f"{ROOT}/") and ".venv" not in p) for p in probe["path"])
    assert set(probe["names"]) >= {"ConnectorComponent", "ProxyComponent", "Registration", "ConnectorArgs", "ProxyArgs"}

    # The main command is the wheel's console script, run outside any clone.
    command = subprocess.run([venv / "bin" / "connectors", "--help"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert command.returncode == 0, command.stderr
    assert command.stdout.startswith("usage: connectors ") and "--stacks PATTERN" in command.stdout
    refused = subprocess.run([venv / "bin" / "connectors", "up"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert refused.returncode == 2 and f"no Pulumi.yaml in {tmp_path}" in refused.stderr, refused.stdout + refused.stderr

    checked = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "check"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_library_gives_ranges_and_the_program_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project["dependencies"] + [d for extra in project["optional-dependencies"].values() for d in extra]
    assert declared and not any("==" in d for d in declared)
    pinned = [line for line in (ROOT / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")]
    assert pinned and all("==" in line for line in pinned)
    names = {re.split(r"[<>=\[]", d)[0].strip().lower() for d in declared}
    assert names == {re.split(r"[=\[]", line)[0].lower() for line in pinned}, json.dumps(sorted(names))


def test_the_library_and_the_generated_python_sdk_install_side_by_side(tmp_path):
    """Two distributions of distinct names: installing one never replaces the other in pip's view."""
    wheels = tmp_path / "wheels"
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copytree(ROOT / "components", source / "components", ignore=shutil.ignore_patterns("__pycache__", "sdk"))
    shutil.copytree(ROOT / "components" / "package" / "sdk" / "python", tmp_path / "sdk")
    for folder in (source, tmp_path / "sdk"):
        build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(folder)]
        done = subprocess.run(build, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    for wheel in sorted(wheels.glob("*.whl")):
        subprocess.run([*pip, "install", "--no-deps", "-q", str(wheel)], check=True, capture_output=True)
    listed = json.loads(subprocess.run([*pip, "list", "--format", "json"], capture_output=True, text=True, check=True).stdout)
    names = {entry["name"].lower().replace("_", "-") for entry in listed}
    assert {"connectors-component", "pulumi-connectors"} <= names, names
    for module in ("components", "pulumi_connectors"):
        found = subprocess.run([python, "-c", f"import importlib.util as u; print(u.find_spec('{module}').origin)"],
                               capture_output=True, text=True, cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})  # fmt: skip
        assert found.stdout.startswith(str(venv)), found.stdout + found.stderr
