"""Running a Pulumi program under ``pulumi.runtime.set_mocks`` and recording what it registers."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi

from components.app.automation.sdk_inline_server import SECRET_KEY, SECRET_SIG


def unwrap_secrets(value: Any, path: str = "", found: list[str] | None = None) -> Any:
    """The value with Pulumi's secret wrappers removed; ``found`` collects where they were."""
    if isinstance(value, dict):
        if value.get(SECRET_KEY) == SECRET_SIG:
            if found is not None:
                found.append(path)
            return unwrap_secrets(value.get("value"), path, found)
        return {k: unwrap_secrets(v, f"{path}.{k}" if path else k, found) for k, v in value.items()}
    if isinstance(value, list):
        return [unwrap_secrets(v, f"{path}[{i}]", found) for i, v in enumerate(value)]
    return value


@dataclass
class Recorded:
    type_: str
    name: str
    inputs: dict[str, Any]
    provider: str | None
    secret_paths: list[str]


class RecordingMocks(pulumi.runtime.Mocks):
    def __init__(self, refuse_calls: bool = False) -> None:
        self.resources: list[Recorded] = []
        self.calls: list[str] = []
        """Tokens of the function calls, in order."""
        self.refuse_calls = refuse_calls
        """Every call answered with a failure (a provider that implements no function)."""

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        secret_paths: list[str] = []
        inputs = unwrap_secrets(dict(args.inputs), "", secret_paths)
        self.resources.append(Recorded(args.typ, args.name, inputs, args.provider, secret_paths))
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        self.calls.append(args.token)
        if self.refuse_calls:
            return {}, [("", f"unknown function {args.token}")]
        return {}, []

    def of_type(self, type_: str) -> list[Recorded]:
        return [r for r in self.resources if r.type_ == type_]

    def one(self, type_: str) -> Recorded:
        found = self.of_type(type_)
        assert len(found) == 1, f"expected one {type_}, got {[r.name for r in found]}"
        return found[0]


def run(program: Callable[[], Any], config: dict[str, Any] | None = None, mocks: RecordingMocks | None = None) -> RecordingMocks:
    """Run ``program`` with mocks; return the mocks once every registration has settled.

    Whatever the program returns (an Output, or a list of them) is awaited too and stored
    on the mocks as ``result``. Pass ``mocks`` to inspect them when the program raises."""
    mocks = mocks or RecordingMocks()
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


class StaticReader:
    """Referenced objects as a dict ``{(kind, namespace, name): data}``; anything else is missing."""

    def __init__(
        self,
        objects: dict[tuple[str, str, str], dict[str, str]] | None = None,
        versions: dict[str, str] | None = None,
        crds: set[str] | None = None,
        custom: dict[tuple[str, str, str, str], dict[str, Any]] | None = None,
        services: set[tuple[str, str]] | None = None,
    ) -> None:
        self.objects = objects or {}
        self.services = services
        """The Services there, by ``(namespace, name)`` (None: every one)."""
        self.custom = custom or {}
        """Upstream operators' objects by ``(apiVersion, plural, namespace, name)``."""
        self.crds = crds
        """The CustomResourceDefinitions installed (None: every one)."""
        self.versions = versions or {}
        """The version the platform of a namespace runs."""
        self.reads: list[tuple[str, str, str]] = []

    def platform_version(self, namespace: str) -> str | None:
        return self.versions.get(namespace)

    def custom_object(self, api_version: str, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self.custom.get((api_version, plural, namespace, name))

    def served(self, crd: str) -> bool:
        return self.crds is None or crd in self.crds

    def service_exists(self, namespace: str, name: str) -> bool:
        return self.services is None or (namespace, name) in self.services

    def read(self, ref: Any) -> dict[str, str] | None:
        key = (ref.kind, ref.namespace, ref.name)
        self.reads.append(key)
        return self.objects.get(key)


def reader_for(connectors: list[dict[str, Any]]) -> StaticReader:
    """A reader that holds every object the connectors reference, with placeholder data."""
    objects = {}
    for c in connectors:
        for ref in c["spec"].get("secretRefs", []):
            objects[("secret", c["namespace"], ref["name"])] = {"k": "dg=="}
        for ref in c["spec"].get("configMapRefs", []):
            objects[("configmap", c["namespace"], ref["name"])] = {"k": "v"}
    return StaticReader(objects)
