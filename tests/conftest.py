from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Iterator
from typing import Any, NoReturn

import pytest
import yaml

from .platform_double import PlatformDouble, platform_double

ROOT = pathlib.Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SAMPLE_STACKS = ["minimal", "full", "with-registration", "otpki", "timestamp-formatting"]


def readme_block(name: str) -> str:
    """The commands of the README's ``<!-- name -->`` shell block, as written."""
    found = re.search(rf"<!-- {name} -->\n```sh\n(.*?)```\n<!-- /{name} -->", (ROOT / "README.md").read_text(), re.S)
    assert found, f"the README's {name} block"
    return found.group(1)


def unavailable(what: str, error: object) -> NoReturn:
    """A tool or server a test needs is missing: a skip with the reason, a failure under ``CI=true``."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} cannot be skipped in CI: {error}")
    pytest.skip(str(error))


@pytest.fixture
def double() -> Iterator[PlatformDouble]:
    """The platform stand-in on 127.0.0.1; every request it saw kept to the Core's OpenAPI file."""
    with platform_double() as running:
        yield running
    assert running.violations == []


def stack_connectors(stack: str) -> list[dict[str, Any]]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config["connectors:connectors"]


@pytest.fixture
def minimal() -> dict[str, Any]:
    return {"name": "demo", "namespace": "ilm", "image": {"repository": "r.example/demo", "tag": "1.0"}}


def kubeconfig_text(server: str, token: str = "test-token", **user: Any) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": user or {"token": token}}],
            "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "ctx",
        }
    )


@pytest.fixture
def ambient_kubeconfig(tmp_path, monkeypatch) -> pathlib.Path:
    """A kubeconfig as KUBECONFIG, for programs whose registration needs cluster credentials."""
    path = tmp_path / "kubeconfig"
    path.write_text(kubeconfig_text("https://127.0.0.1:6443"))
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path
