"""The project's own files as the tests read them: the sample stacks' entries, the README's
blocks, the test data, and a kubeconfig for a stand-in API server."""

from __future__ import annotations

import re
from typing import Any

import yaml

from .skipping import ROOT

DATA = ROOT / "tests" / "data"


SAMPLE_STACKS = ["minimal", "full", "with-registration", "otpki", "timestamp-formatting"]


def readme_block(name: str, document: str = "README.md") -> str:
    """The commands of the ``<!-- name -->`` shell block of the README (or another document of
    the project), as written."""
    found = re.search(rf"<!-- {name} -->\n```sh\n(.*?)```\n<!-- /{name} -->", (ROOT / document).read_text(), re.S)
    assert found, f"the {document}'s {name} block"
    return found.group(1)


def stack_connectors(stack: str) -> list[dict[str, Any]]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config["connectors:connectors"]


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
