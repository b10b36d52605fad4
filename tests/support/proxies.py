"""The proxies of the sample stacks, their config token Secret, and the objects the operator renders
for a proxy: shared by the unit, engine, cluster and node tests."""

from __future__ import annotations

import base64
from typing import Any

import yaml

from .mocks import StaticReader
from .skipping import ROOT

TOKEN_VALUE = "eyJhbGciOiJIUzI1NiJ9.eyJicm9rZXIiOiJhbXFwcyJ9.c2lnbmF0dXJlLXNlY3JldA"


def stack_proxies(stack: str) -> list[dict[str, Any]]:
    return yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]["connectors:proxies"]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def token_reader(token: str = TOKEN_VALUE, key: str = "configToken", extra: dict[str, str] | None = None) -> StaticReader:
    return StaticReader({("secret", "ilm", "dc-east-config"): {key: b64(token), **(extra or {})}})


def operator_proxy_objects(namespace: str = "default", checksum: str = "CHECKSUM") -> dict[str, dict[str, Any]]:
    """The reference operator's rendering of the minimal proxy sample (tests/data), by kind."""
    text = (
        (ROOT / "tests" / "data" / "operator-proxy-minimal-objects.yaml")
        .read_text()
        .replace("NAMESPACE", namespace)
        .replace("CHECKSUM", checksum)
    )
    return {o["kind"]: o for o in yaml.safe_load_all(text)}
