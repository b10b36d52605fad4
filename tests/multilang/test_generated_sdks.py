"""The component package's SDKs (#31): generated from its schema by Pulumi's code generators
(``scripts/generate-sdks``; the committed ones are what it makes), with clean names in every
language, and each built as its ecosystem builds it: ``npm pack`` with the compiled output, ``go
build`` and ``go vet``, a Python wheel. (C#: Pulumi's C# generator is not in the Go module the
CLI is built from at v3.274.1, and the machine has no dotnet: no C# SDK is generated.)"""

from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

from components.package import VERSION

from ..conftest import ROOT, unavailable

SDK = ROOT / "components" / "package" / "sdk"
GENERATED = ("nodejs", "go/connectors", "python")


def files_of(folder: pathlib.Path) -> dict[str, str]:
    skip = ("node_modules", "bin", "build", "__pycache__")
    return {
        str(p.relative_to(folder)): p.read_text()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part in skip or part.endswith(".egg-info") for part in p.relative_to(folder).parts)
    }


def test_the_committed_sdks_are_what_the_generator_makes(tmp_path):
    if shutil.which("go") is None:
        unavailable("SDK generation", "go is not installed")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "generate-sdks"), str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    for language in GENERATED:
        assert files_of(tmp_path / language) == files_of(SDK / language), f"{language}: run scripts/generate-sdks"


def test_the_generator_is_the_clis_version():
    cli = re.search(r"^PULUMI_VERSION=(\S+)$", (ROOT / "scripts" / "install-tools").read_text(), re.M)
    go_mod = (ROOT / "scripts" / "sdkgen" / "go.mod").read_text()
    assert cli and f"github.com/pulumi/pulumi/pkg/v3 {cli[1]}" in go_mod


def identifiers(language: str) -> set[str]:
    text = "\n".join(files_of(SDK / language).values())
    return set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))


# Field names of the manifests (the key holding a client key, the operator's signing key field, the
# Platform's keys of an API key, a token signing key and a private key): kept as stack config writes them.
FIELD_NAMES = {
    f"{prefix}{name}"
    for stem in ("clientKey", "signingKey", "apiKey", "tokenSigningKey", "privateKey")
    for prefix, name in (("", f"{stem}Key"), ("", f"{stem[0].upper()}{stem[1:]}Key"))
} | {"client_key_key", "signing_key_key", "api_key_key", "token_signing_key_key", "private_key_key"}


@pytest.mark.parametrize("language", GENERATED)
def test_no_type_args_or_doubled_names(language):
    names = identifiers(language)
    assert not [n for n in names if n.endswith("TypeArgs") or n.startswith("RegistrationType")]
    doubled = {n for n in names if re.search(r"([A-Z][a-z]{2,})\1", n) or re.search(r"(?:^|_)([a-z]{3,})_\1(?=_|$)", n)}
    assert doubled <= FIELD_NAMES, doubled - FIELD_NAMES


def test_each_languages_names_are_the_schemas_and_the_readmes():
    package = json.loads((SDK / "nodejs" / "package.json").read_text())
    assert (package["name"], package["version"]) == ("@otilm/pulumi-connectors", VERSION)
    assert f'version = "{VERSION}"' in (SDK / "python" / "pyproject.toml").read_text()
    assert "module github.com/otilm/pulumi-connectors/sdk" in (SDK / "go.mod").read_text()
    guide = (ROOT / "docs" / "other-languages.md").read_text()
    for name in ("@otilm/pulumi-connectors", "github.com/otilm/pulumi-connectors/sdk/go/connectors", "pulumi_connectors"):
        assert name in guide


def test_the_typescript_sdk_packs_with_its_compiled_output(tmp_path):
    if shutil.which("npm") is None:
        unavailable("the TypeScript SDK's build", "npm is not installed")
    work = tmp_path / "nodejs"
    shutil.copytree(SDK / "nodejs", work, ignore=shutil.ignore_patterns("node_modules", "bin"))
    for step in (
        ["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"],
        ["npm", "run", "postinstall"],
        ["npm", "pack"],
    ):
        done = subprocess.run([*step, "--loglevel=error"], cwd=work, capture_output=True, text=True)
        assert done.returncode == 0, f"{' '.join(step)}: {done.stderr[-2000:]}"
    with tarfile.open(work / f"otilm-pulumi-connectors-{VERSION}.tgz") as packed:
        names = set(packed.getnames())
    assert {"package/bin/index.js", "package/bin/index.d.ts", "package/bin/connector.js", "package/bin/package.json"} <= names


def test_the_go_sdk_builds_and_vets():
    if shutil.which("go") is None:
        unavailable("the Go SDK's build", "go is not installed")
    for step in (["go", "build", "./..."], ["go", "vet", "./..."]):
        done = subprocess.run(step, cwd=SDK, capture_output=True, text=True, env={**__import__("os").environ, "CGO_ENABLED": "0"})
        assert done.returncode == 0, f"{' '.join(step)}: {done.stderr[-2000:]}"


def test_the_python_sdk_is_a_wheel(tmp_path):
    work = tmp_path / "python"
    shutil.copytree(SDK / "python", work)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(work), "-w", str(tmp_path / "wheel")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    assert wheel.name == f"pulumi_connectors-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        assert {"pulumi_connectors/connector.py", "pulumi_connectors/pulumi-plugin.json"} <= set(archive.namelist())
