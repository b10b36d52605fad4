"""The Core's contract, read from its OpenAPI description (``tests/data/core-connector-openapi.yaml``):
the operation a request matches, the schema of a body, and what a value breaks of a schema. The
platform stand-in checks every request and answer with it."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

OPENAPI_FILE = Path(__file__).parents[1] / "data" / "core-connector-openapi.yaml"
OPENAPI_URI = "https://platform.test/openapi.json"


@cache
def openapi() -> dict[str, Any]:
    """The Core's OpenAPI description, as the file has it but for what the Core reads less of."""
    document = yaml.safe_load(OPENAPI_FILE.read_text())
    schemas = document["components"]["schemas"]
    # The Core reads a request's attribute as RequestAttributeV2 and looks its definition up by
    # name, which gives the rest: uuid, contentType and version are not required of it; and it
    # reads each content item by that definition's content type, where the file's oneOf of item
    # types overlaps (a string data is a String, a Text and an Object item alike): any one will do.
    schemas["RequestAttribute"] = {**schemas["RequestAttributeV2"], "required": ["name"]}
    items = schemas["BaseAttributeContentDtoV2"]
    items["anyOf"] = items.pop("oneOf")
    return document


@cache
def registry() -> Registry:
    return Registry().with_resource(OPENAPI_URI, Resource(contents=openapi(), specification=DRAFT202012))


def schema_problems(schema: dict[str, Any], value: Any) -> list[str]:
    wrapped = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://platform.test/x", **_rebased(schema)}
    validator = jsonschema.Draft202012Validator(wrapped, registry=registry())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(value)]


def _rebased(schema: Any) -> Any:
    """``#/components/...`` references pointed at the OpenAPI document's own URI."""
    if isinstance(schema, dict):
        return {k: (OPENAPI_URI + v if k == "$ref" and v.startswith("#") else _rebased(v)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_rebased(v) for v in schema]
    return schema


def operation(method: str, path: str) -> tuple[str, dict[str, Any]] | None:
    """The OpenAPI path template and operation a request matches, or None."""
    for template, item in openapi()["paths"].items():
        pattern = "^" + re.sub(r"\{[^}]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path) and method.lower() in item:
            return template, item[method.lower()]
    return None


def json_schema_of(content: dict[str, Any] | None) -> dict[str, Any] | None:
    if not content:
        return None
    media = content.get("application/json")
    return media.get("schema") if media else None
