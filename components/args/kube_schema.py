"""Free-form Kubernetes blocks (affinity, tolerations, resources, extra containers) checked
against the Kubernetes schema of the pinned version, before anything is created.

The schema is the API's OpenAPI description as JSON Schema, shipped by ``kubernetes-validate``
for v1.37 (the version of the local control plane the tests run). Where the API describes a
closed set of values only in prose (a toleration's ``operator``, a quantity's syntax), the rule
is added here, so that ``operator: Maybe`` or ``cpu: lots`` is refused at preview and not at
apply time. Problems name the path inside the block and never repeat a value.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import jsonschema
from referencing import Registry, Resource

from components.args.problems import NestedProblems, Problem, key_in_path, kind_of

KUBERNETES_VERSION = "1.37.0"
SCHEMA_FOLDER = f"kubernetes-json-schema/v{KUBERNETES_VERSION}-local-strict"
DEFINITIONS_URI = "https://kubernetes.io/api/_definitions.json"

MAX_DEPTH = 32
MAX_NODES = 10_000
MAX_STRING = 65_536

# apimachinery's resource.Quantity grammar: a signed decimal number with an optional exponent
# or binary/decimal suffix.
QUANTITY = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$"

# Closed sets the API documents in prose only (its validation code refuses other values).
ENUMS: dict[tuple[str, str], list[str]] = {
    ("io.k8s.api.core.v1.Toleration", "operator"): ["Exists", "Equal", "Lt", "Gt"],
    ("io.k8s.api.core.v1.Toleration", "effect"): ["NoSchedule", "PreferNoSchedule", "NoExecute", ""],
    ("io.k8s.api.core.v1.NodeSelectorRequirement", "operator"): ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"],
    ("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "operator"): ["In", "NotIn", "Exists", "DoesNotExist"],
    ("io.k8s.api.core.v1.Container", "imagePullPolicy"): ["Always", "IfNotPresent", "Never"],
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): ["TCP", "UDP", "SCTP"],
}

INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}

Block = str  # a definition name, e.g. "io.k8s.api.core.v1.Affinity"
AFFINITY: Block = "io.k8s.api.core.v1.Affinity"
TOLERATION: Block = "io.k8s.api.core.v1.Toleration"
RESOURCES: Block = "io.k8s.api.core.v1.ResourceRequirements"
CONTAINER: Block = "io.k8s.api.core.v1.Container"
QUANTITY_DEF: Block = "io.k8s.apimachinery.pkg.api.resource.Quantity"


@functools.cache
def _definitions() -> dict[str, Any]:
    text = files("kubernetes_validate").joinpath(SCHEMA_FOLDER, "_definitions.json").read_text()
    schema = json.loads(text)
    defs = schema["$defs"]
    for (definition, prop), values in ENUMS.items():
        defs[definition]["properties"][prop] = {**defs[definition]["properties"][prop], "enum": [*values, None]}
    defs[QUANTITY_DEF] = {"type": ["string", "number", "null"], "pattern": QUANTITY}
    defs["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = {"type": ["string", "integer", "null"]}
    return schema


def _format_checker() -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(formats=())
    for name, (low, high) in INT_RANGES.items():
        checker.checks(name)(lambda value, low=low, high=high: not isinstance(value, int) or low <= value <= high)
    return checker


@functools.cache
def _validator(definition: Block) -> jsonschema.protocols.Validator:
    registry: Registry = Registry().with_resource(DEFINITIONS_URI, Resource.from_contents(_definitions()))
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://kubernetes.io/api/connector-block",
        "$ref": f"/api/_definitions.json#/$defs/{definition}",
    }
    return jsonschema.Draft202012Validator(schema, registry=registry, format_checker=_format_checker())


def _path(parts: Any) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{key_in_path(str(p))}" for p in parts)


def _problems(error: jsonschema.ValidationError) -> Iterator[Problem]:
    path, instance, schema = _path(error.absolute_path), error.instance, error.schema
    rule = error.validator
    if rule == "additionalProperties" and isinstance(instance, dict):
        known = set(schema.get("properties", {}))
        for key in instance:
            if key not in known:
                yield Problem(f"{path}.{key_in_path(str(key))}", "unknown field (check its spelling)")
    elif rule == "required" and isinstance(instance, dict):
        for key in schema.get("required", []):
            if key not in instance:
                yield Problem(f"{path}.{key}", "required field is missing")
    elif rule == "type":
        wanted = [t for t in ([schema["type"]] if isinstance(schema["type"], str) else schema["type"]) if t != "null"]
        yield Problem(path, f"must be {' or '.join(_a(t) for t in wanted)} (got {kind_of(instance)})")
    elif rule == "enum":
        allowed = ", ".join(repr(v) for v in schema["enum"] if v is not None)
        yield Problem(path, f"must be one of {allowed} (got {kind_of(instance)})")
    elif rule == "pattern" and schema.get("pattern") == QUANTITY:
        yield Problem(path, f"must be a Kubernetes quantity such as 500m, 1.5, 128Mi or 2Gi (got {kind_of(instance)})")
    elif rule == "format":
        yield Problem(path, f"must be an {schema['format']} integer: out of range (got {kind_of(instance)})")
    else:
        yield Problem(path, f"breaks the Kubernetes schema's {rule} rule (got {kind_of(instance)})")


def _a(json_type: str) -> str:
    return {"integer": "an integer", "object": "a map", "array": "a list", "string": "a string"}.get(json_type, f"a {json_type}")


def shape_problems(value: Any) -> list[Problem]:
    """Depth, node count and string size caps, checked without recursion."""
    problems: list[Problem] = []
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    nodes = 0
    while stack:
        item, path, depth = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH:
            return [Problem("", f"nested more than {MAX_DEPTH} levels deep")]
        if nodes > MAX_NODES:
            return [Problem("", f"has more than {MAX_NODES} values")]
        if isinstance(item, str) and len(item) > MAX_STRING:
            problems.append(Problem(path, f"is longer than {MAX_STRING} characters (got {kind_of(item)})"))
        elif isinstance(item, dict):
            stack.extend((v, f"{path}.{key_in_path(str(k))}", depth + 1) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
    return problems


def bounded(value: Any) -> Any:
    """A pydantic before-validator: refuses values too deep or too large to be a Kubernetes field."""
    problems = shape_problems(value)
    if problems:
        raise NestedProblems(problems)
    return value


def check(definition: Block, value: Any, path: str = "") -> list[Problem]:
    """Every way ``value`` breaks the schema of ``definition``, with paths under ``path``."""
    problems = shape_problems(value)
    if problems:
        return [Problem(path + p.path, p.message) for p in problems]
    found: list[Problem] = []
    for error in sorted(_validator(definition).iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
        for problem in _problems(error):
            located = Problem(path + problem.path, problem.message)
            if located not in found:
                found.append(located)
    return found


def conforms_to(definition: Block) -> Any:
    """A pydantic after-validator for a free-form block of kind ``definition``."""

    def validate(value: Any) -> Any:
        if value is None:
            return value
        problems = check(definition, value)
        if problems:
            raise NestedProblems(problems)
        return value

    validate.kubernetes_definition = definition  # type: ignore[attr-defined]  # read by the package schema
    validate.__doc__ = f"Checked against the Kubernetes v{KUBERNETES_VERSION} schema ({definition.rsplit('.', 1)[-1]})."
    return validate


def each_conforms_to(definition: Block) -> Any:
    """The same for a list of blocks, each item at its index."""

    def validate(values: list[Any]) -> list[Any]:
        problems = [p for i, value in enumerate(values) for p in check(definition, value, f"[{i}]")]
        if problems:
            raise NestedProblems(problems)
        return values

    validate.kubernetes_definition = definition  # type: ignore[attr-defined]
    validate.each = True  # type: ignore[attr-defined]
    validate.__doc__ = f"Each checked against the Kubernetes v{KUBERNETES_VERSION} schema ({definition.rsplit('.', 1)[-1]})."
    return validate
