"""The operator's recorded Platform renders (``tests/data/operator-platform``) and the comparison
the golden tests make: object by object, after the operator's own normalisation.

Two kinds of difference are set aside, each named here and in docs/platform.md:
- what Go writes for a field left unset (``strategy: {}``, ``resources: {}``, a Service port's
  ``targetPort: 0``): the API server stores the same object with or without them;
- the two scripts whose text is this library's own (the first administrator's registration, the
  proxy queue's registration): their requests are the operator's, their text is not.
"""

from __future__ import annotations

import base64
import copy
import pathlib
from typing import Any

import yaml

from components.args.platform_spec import PlatformArgs, PlatformEntry

FOLDER = pathlib.Path(__file__).resolve().parents[1] / "data" / "operator-platform"
EXTERNAL_VARIANTS = ("minimal", "edge-internal", "utils-on", "external-messaging", "version-2190", "core-instance-id")
OWN_TEXT = "(this library's own script)"


def variant_args(variant: str) -> PlatformArgs:
    document = yaml.safe_load((FOLDER / "variants" / f"{variant}.yaml").read_text())
    metadata = document["metadata"]
    entry = PlatformEntry.model_validate({"name": metadata["name"], "namespace": metadata["namespace"], "spec": document["spec"]})
    return entry.to_args()


def golden_objects(variant: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all((FOLDER / "golden" / f"{variant}.golden.yaml").read_text()) if doc]


def identity(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj["metadata"]
    return obj["apiVersion"], obj["kind"], meta.get("namespace", ""), meta["name"]


def _containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    pod = obj.get("spec", {}).get("template", {}).get("spec", {})
    return [*pod.get("containers", []), *pod.get("initContainers", [])]


def normalised(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without Go's unset fields, with this library's own scripts' text set aside."""
    obj = copy.deepcopy(obj)
    obj.pop("status", None)
    obj["metadata"].pop("creationTimestamp", None)
    if obj["kind"] == "Deployment" and obj["spec"].get("strategy") == {}:
        del obj["spec"]["strategy"]
    for container in _containers(obj):
        if container.get("resources") == {}:
            del container["resources"]
        if container.get("name") == "provision-instance-queue":
            container["command"][2] = OWN_TEXT
    if obj["kind"] == "Service":
        for port in obj["spec"]["ports"]:
            if port.get("targetPort") == 0:
                del port["targetPort"]
    if obj["kind"] == "ConfigMap" and obj["metadata"]["name"].endswith("-core-scripts"):
        obj["data"] = dict.fromkeys(obj["data"], OWN_TEXT)
    return obj


def by_identity(objects: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    return {identity(obj): normalised(obj) for obj in objects}


def minimal_spec() -> dict[str, Any]:
    """The minimal variant's spec, to be changed by a test."""
    return copy.deepcopy(yaml.safe_load((FOLDER / "variants" / "minimal.yaml").read_text())["spec"])


def args_with(name: str = "ilm", namespace: str = "ilm", **changes: Any) -> PlatformArgs:
    """The minimal variant with ``changes`` set at the spec's top level (``None`` removes a block)."""
    spec = minimal_spec()
    for key, value in changes.items():
        if value is None:
            spec.pop(key, None)
        else:
            spec[key] = value
    return PlatformEntry.model_validate({"name": name, "namespace": namespace, "spec": spec}).to_args()


def find(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    return next(obj for obj in objects if obj["kind"] == kind and obj["metadata"]["name"] == name)


def container(deployment: dict[str, Any], name: str) -> dict[str, Any]:
    pod = deployment["spec"]["template"]["spec"]
    return next(c for c in [*pod["containers"], *pod.get("initContainers", [])] if c["name"] == name)


def env_of(container: dict[str, Any]) -> dict[str, Any]:
    """A container's variables by name: a plain value, or its ``valueFrom``."""
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container.get("env", [])}


SECRET_DATA = {"username": base64.b64encode(b"ilm").decode(), "password": base64.b64encode(b"s3cr3t;pw").decode()}
"""A database credentials Secret's data, as the API returns it."""
MANAGED_DATABASE = {"mode": "managed", "managed": {"storage": {"size": "1Gi"}}}
