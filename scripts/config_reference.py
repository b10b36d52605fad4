"""The stack config's reference, generated from the argument models: ``docs/configuration.md``
(every key and field: type, default, allowed values, rule) and ``docs/stack-config.schema.json``
(a JSON Schema of ``stacks/Pulumi.*.yaml`` for an editor's YAML language server).

    python -m scripts.config_reference           # write both
    python -m scripts.config_reference --check   # exit 1 when the committed files are stale
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import types
import typing
from typing import Any, Literal

from pydantic import AfterValidator, BaseModel, WithJsonSchema
from pydantic.fields import FieldInfo

from components.args.connector_spec import ConnectorEntry
from components.args.platform_spec import PlatformEntry
from components.args.proxy_spec import ProxyEntry

ROOT = pathlib.Path(__file__).resolve().parents[1]

DOCS = ROOT / "docs"
SCHEMA_FILE = DOCS / "stack-config.schema.json"
REFERENCE_FILE = DOCS / "configuration.md"
DESCRIPTION = "A stack file of the connectors project (stacks/Pulumi.<stack>.yaml). Generated: scripts/config_reference.py."
SECURE = {"type": "object", "properties": {"secure": {"type": "string"}}, "required": ["secure"], "additionalProperties": False}
STACK_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "connectors:connectors": ({"type": "array", "items": {"$ref": "#/$defs/ConnectorEntry"}}, "The connectors: one entry each."),
    "connectors:proxies": ({"type": "array", "items": {"$ref": "#/$defs/ProxyEntry"}}, "The proxies: one entry each."),
    "connectors:platforms": (
        {"type": "array", "items": {"$ref": "#/$defs/PlatformEntry"}},
        "The platforms: one entry each, at most one per namespace (created before the connectors).",
    ),
    "connectors:renderDirectory": ({"type": "string"}, "Write the manifests to this folder instead of applying them."),
    "connectors:kubeconfig": ({"type": "string"}, "The cluster: a kubeconfig's path or content (default: the ambient one)."),
    "connectors:context": ({"type": "string"}, "The kubeconfig context (default: its current one)."),
    "connectors:createNamespaces": (
        {"type": ["boolean", "string"]},
        "Create each entry's namespace, under the restricted Pod Security level (kept on destroy). Default false.",
    ),
    "kubernetes:kubeconfig": ({"type": "string"}, "The Kubernetes provider's own key: the same as connectors:kubeconfig."),
    "kubernetes:context": ({"type": "string"}, "The Kubernetes provider's own key: the same as connectors:context."),
}


def _secure_strings(node: Any) -> Any:
    """Every string may also be given as ``{secure: ...}`` (``pulumi config set --path --secret``)."""
    if isinstance(node, dict):
        node = {k: _secure_strings(v) for k, v in node.items() if k != "title"}
        if node.get("type") == "string":
            text = {k: v for k, v in node.items() if k != "description"}
            return {**({"description": node["description"]} if "description" in node else {}), "anyOf": [text, SECURE]}
        if "properties" in node:
            node["properties"].pop("source", None)  # a Python caller's resource object: not in config
        return node
    if isinstance(node, list):
        return [_secure_strings(item) for item in node]
    return node


def stack_schema() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for model in (ConnectorEntry, ProxyEntry, PlatformEntry):
        generated = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(generated.pop("$defs", {}))
        defs[model.__name__] = generated
    config = {key: {**spec, "description": text} for key, (spec, text) in STACK_KEYS.items()}
    return _secure_strings(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/otilm/pulumi-connectors/docs/stack-config.schema.json",
            "description": DESCRIPTION,
            "type": "object",
            "properties": {
                "config": {"type": "object", "properties": config, "additionalProperties": True},
                "encryptionsalt": {"type": "string"},
                "secretsprovider": {"type": "string"},
                "encryptedkey": {"type": "string"},
            },
            "$defs": dict(sorted(defs.items())),
        }
    )


def _declared(metadata: Any) -> str | None:
    """The type a ``WithJsonSchema`` gives a field that is ``Any`` to Python (it takes Outputs)."""
    for item in metadata:
        if isinstance(item, WithJsonSchema) and item.json_schema:
            kind = item.json_schema.get("type")
            return " or ".join(kind) if isinstance(kind, list) else str(kind)
    return None


def _type_text(annotation: Any) -> str:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _declared(args[1:]) or _type_text(args[0])
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_text(a) for a in args if a is not type(None))
    if origin is Literal:
        return "string"
    if origin is list:
        return f"list of {_type_text(args[0])}"
    if origin is dict:
        value = _type_text(args[1])
        return "object" if value == "any" else f"map of {value}"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    return {str: "string", int: "integer", float: "number", bool: "boolean"}.get(annotation, "any")


def _allowed(annotation: Any) -> str:
    if typing.get_origin(annotation) is Literal:
        return ", ".join(f"`{v}`" for v in typing.get_args(annotation) if v != "")
    for arg in typing.get_args(annotation):
        found = _allowed(arg)
        if found:
            return found
    return ""


def _constraints(annotation: Any, metadata: list[Any]) -> list[Any]:
    """Every constraint and validator on a field, its annotation's aliases included."""
    found = list(metadata)
    if typing.get_origin(annotation) is typing.Annotated:
        found += list(typing.get_args(annotation)[1:])
    for arg in typing.get_args(annotation):
        if typing.get_origin(arg) is not Literal:
            found += _constraints(arg, [])
    return found


BOUNDS = {
    "ge": "At least {}.",
    "gt": "Above {}.",
    "le": "At most {}.",
    "lt": "Below {}.",
    "min_length": "At least {} characters.",
    "max_length": "At most {} characters.",
}


def _rule(info: FieldInfo) -> str:
    parts: list[str] = []
    for item in _constraints(info.annotation, info.metadata):
        for attribute, text in BOUNDS.items():
            value = getattr(item, attribute, None)
            if value is not None and not isinstance(item, type):
                parts.append(text.format(value))
        pattern = getattr(item, "pattern", None)
        if isinstance(pattern, str):
            parts.append(f"Matches `{pattern}`.")
        func = getattr(item, "func", None)
        if isinstance(item, AfterValidator) and func is not None and func.__doc__:
            parts.append(" ".join(func.__doc__.split()))
    return " ".join(dict.fromkeys(parts)).replace("|", "\\|")


def _nested(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _nested(arg)
        if found is not None:
            return found
    return None


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.default
    if isinstance(value, BaseModel) or value in ({}, [], None):
        return ""
    return f"`{json.dumps(value)}`"


def _rows(model: type[BaseModel], prefix: str, seen: tuple[type, ...] = ()) -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        if name == "source":
            continue
        path = f"{prefix}{info.alias or name}"
        text = " ".join((info.description or "").split()).replace("|", "\\|")
        kind = _declared(info.metadata) or _type_text(info.annotation)
        default, allowed = _default(info), _allowed(info.annotation)
        rows.append(f"| `{path}` | {kind} | {default} | {allowed} | {_rule(info)} | {text} |")
        nested = _nested(info.annotation)
        if nested is not None and nested not in seen:
            marker = "[]" if "list of" in _type_text(info.annotation) else ""
            rows += _rows(nested, f"{path}{marker}.", (*seen, model))
    return rows


def reference_markdown() -> str:
    lines = [
        "# Configuration reference",
        "",
        "Generated from the argument models by `scripts/config_reference.py` (a test fails when it is stale).",
        "Every key goes in a stack file, `stacks/Pulumi.<stack>.yaml`, under `config:`; an editor's YAML",
        "language server checks it against `docs/stack-config.schema.json` (the modeline at the top of each",
        "sample stack). Strings may be set as secrets: `pulumi config set --path --secret '<path>' <value>`.",
        "",
        "## Stack config keys",
        "",
        "| key | type | what it is |",
        "|---|---|---|",
    ]
    for key, (spec, text) in STACK_KEYS.items():
        kind = spec.get("type", "list")
        lines.append(f"| `{key}` | {' or '.join(kind) if isinstance(kind, list) else kind} | {text} |")
    header = ["", "| field | type | default | allowed | rule | what it is |", "|---|---|---|---|---|---|"]
    kinds = (
        ("Connector", ConnectorEntry, "connectors"),
        ("Proxy", ProxyEntry, "proxies"),
        ("Platform", PlatformEntry, "platforms"),
    )
    for title, model, key in kinds:
        lines += ["", f"## A {title.lower()}: an entry of `connectors:{key}`", *header, *_rows(model, "")]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed files differ from the models")
    check = parser.parse_args(argv).check
    generated = {SCHEMA_FILE: json.dumps(stack_schema(), indent=2) + "\n", REFERENCE_FILE: reference_markdown()}
    stale = [path for path, text in generated.items() if not path.exists() or path.read_text() != text]
    if check:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run python -m scripts.config_reference", file=sys.stderr)
        return 1 if stale else 0
    for path, text in generated.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
