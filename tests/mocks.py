"""Running a Pulumi program under ``pulumi.runtime.set_mocks`` and recording what it registers."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi


@dataclass
class Recorded:
    type_: str
    name: str
    inputs: dict[str, Any]
    parent: str | None
    provider: str | None


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.resources: list[Recorded] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        parent = getattr(args.custom, "_parent", None) if args.custom is not None else None
        self.resources.append(Recorded(args.typ, args.name, dict(args.inputs), None, args.provider))
        del parent
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        return {}, None

    def of_type(self, type_: str) -> list[Recorded]:
        return [r for r in self.resources if r.type_ == type_]

    def one(self, type_: str) -> Recorded:
        found = self.of_type(type_)
        assert len(found) == 1, f"expected one {type_}, got {[r.name for r in found]}"
        return found[0]


def run(program: Callable[[], Any], config: dict[str, Any] | None = None) -> RecordingMocks:
    """Run ``program`` with mocks; return the mocks once every registration has settled.

    Whatever the program returns (an Output, or a list of them) is awaited too and stored
    on the mocks as ``result``."""
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="connectors", stack="test", preview=False)
    pulumi.runtime.set_all_config(
        {f"connectors:{k}": v if isinstance(v, str) else json.dumps(v) for k, v in (config or {}).items()}
    )
    result: dict[str, Any] = {}

    @pulumi.runtime.test
    def body() -> Any:
        value = program()
        if value is None:
            return None
        return pulumi.Output.from_input(value).apply(lambda v: result.setdefault("value", v))

    body()
    mocks.result = result.get("value")  # type: ignore[attr-defined]
    return mocks
