"""``connectors:index:Registration``: the registration as a resource of the component package,
served by the package's own provider process (``provider_server``), for programs in other
languages, whose engine would start a Python dynamic provider with no virtualenv to run it.

The same provider logic as the Python program's dynamic ``Registration`` (``registration.provider``),
reached under the package's property names (``Input.wire``)."""

from __future__ import annotations

from typing import Any

import pulumi

from ..registration import inputs
from ..registration.resource import secret_where_always

TYPE_TOKEN = "connectors:index:Registration"
OUTPUTS = {"uuid": "uuid", "status": "status", "registered_at": "registeredAt"}
TO_WIRE = {**{i.name: i.wire for i in inputs.TABLE}, **OUTPUTS}
FROM_WIRE = {wire: name for name, wire in TO_WIRE.items()}
SECRET_WIRE = [i.wire for i in inputs.TABLE if i.always_secret]


def to_wire(props: dict[str, Any]) -> dict[str, Any]:
    return {TO_WIRE.get(key, key): value for key, value in props.items()}


def from_wire(props: dict[str, Any]) -> dict[str, Any]:
    return {FROM_WIRE.get(key, key): value for key, value in props.items()}


class PackageRegistration(pulumi.CustomResource):
    """The registration of a connector built by the component package (see the module)."""

    uuid: pulumi.Output[str]
    status: pulumi.Output[str]
    registered_at: pulumi.Output[str]

    def __init__(self, resource_name: str, *, opts: pulumi.ResourceOptions | None = None, **given: Any) -> None:
        props = to_wire(secret_where_always(inputs.with_defaults(given)))
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=SECRET_WIRE, delete_before_replace=True)
        )
        # Under their wire names already: the SDK applies a translator to nested keys too (an
        # attribute's content would be renamed), so only the one output is translated back.
        super().__init__(TYPE_TOKEN, resource_name, {**props, **dict.fromkeys(OUTPUTS)}, opts)

    def translate_output_property(self, prop: str) -> str:
        return "registered_at" if prop == "registeredAt" else prop


KIND_TYPES: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "uuid": {"type": "string"},
    "choice": {"type": "string"},
    "boolean": {"type": "boolean"},
    "seconds": {"type": "number"},
    "attributes": {"type": "array", "items": {"$ref": "#/types/connectors:index:Attribute"}},
    "credentials": {"type": "object", "additionalProperties": {"type": "string"}},
}


def schema_resource() -> dict[str, Any]:
    """The resource's entry in the package schema, from the inputs' table."""
    properties = {}
    for i in inputs.TABLE:
        choices = f" One of: {', '.join(i.choices)}." if i.choices else ""
        properties[i.wire] = {
            **KIND_TYPES[i.kind],
            "description": i.doc + choices,
            **({"secret": True} if i.always_secret else {}),
        }
    outputs = {
        "uuid": {
            "type": "string",
            "description": "The uuid the platform gave the connector (kept in state: never registered twice).",
        },
        "status": {"type": "string", "description": "The record's status as the platform last reported it."},
        "registeredAt": {"type": "string", "description": "When the connector was registered (ISO 8601)."},
    }
    return {
        "description": "A connector's record on the platform: registered (or adopted) once, its uuid kept in state.",
        "inputProperties": properties,
        "requiredInputs": [i.wire for i in inputs.TABLE if i.required],
        "properties": {**properties, **outputs},
        "required": list(outputs),
    }
