from __future__ import annotations

import pathlib
from typing import Any

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SAMPLE_STACKS = ["minimal", "full", "with-registration", "otpki", "timestamp-formatting"]


def stack_connectors(stack: str) -> list[dict[str, Any]]:
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{stack}.yaml").read_text())["config"]
    return config["connectors:connectors"]


@pytest.fixture
def minimal() -> dict[str, Any]:
    return {"name": "demo", "namespace": "ilm", "image": {"repository": "r.example/demo", "tag": "1.0"}}
