"""``connectors:index:Registration``: the registration as a resource of the component package,
served by the package's own provider process (``provider_server``), for programs in other
languages, whose engine would start a Python dynamic provider with no virtualenv to run it.

The same provider logic as the Python program's dynamic ``Registration`` (``registration.provider``),
reached under the package's property names (``Input.package``, ``Output.package``)."""

from __future__ import annotations

from typing import Any

import pulumi

from components.registration import contract
from components.registration.resource import secret_where_always
from components.type_tokens import REGISTRATION

TO_PACKAGE = {**{i.python: i.package for i in contract.TABLE}, **{o.python: o.package for o in contract.OUTPUTS}}
FROM_PACKAGE = {package: python for python, package in TO_PACKAGE.items()}
SECRET = [TO_PACKAGE[name] for name in contract.ALWAYS_SECRET]


def to_package(props: dict[str, Any]) -> dict[str, Any]:
    """Properties under the package's names."""
    return {TO_PACKAGE.get(key, key): value for key, value in props.items()}


def from_package(props: dict[str, Any]) -> dict[str, Any]:
    """Properties under the provider's (Python) names."""
    return {FROM_PACKAGE.get(key, key): value for key, value in props.items()}


class PackageRegistration(pulumi.CustomResource):
    """The registration of a connector built by the component package (see the module)."""

    uuid: pulumi.Output[str]
    status: pulumi.Output[str]
    registered_at: pulumi.Output[str]

    def __init__(self, resource_name: str, *, opts: pulumi.ResourceOptions | None = None, **given: Any) -> None:
        props = to_package(secret_where_always(contract.with_defaults(given)))
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=SECRET, delete_before_replace=True)
        )
        # Under the package's names already: the SDK applies a translator to nested keys too (an
        # attribute's content would be renamed), so only the outputs are translated back.
        super().__init__(REGISTRATION, resource_name, {**props, **dict.fromkeys(contract.OUTPUT_NAMES)}, opts)

    def translate_output_property(self, prop: str) -> str:
        return OUTPUT_NAMES.get(prop, prop)


OUTPUT_NAMES = {o.package: o.python for o in contract.OUTPUTS}
VALUE_TYPES: dict[str, dict[str, Any]] = {
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
    for i in contract.TABLE:
        choices = f" One of: {', '.join(i.choices)}." if i.choices else ""
        properties[i.package] = {
            **VALUE_TYPES[i.value_type],
            "description": i.doc + choices,
            **({"secret": True} if i.always_secret else {}),
        }
    outputs = {o.package: {"type": "string", "description": o.doc} for o in contract.OUTPUTS}
    return {
        "description": "A connector's record on the platform: registered (or adopted) once, its uuid kept in state.",
        "inputProperties": properties,
        "requiredInputs": [i.package for i in contract.TABLE if i.required],
        "properties": {**properties, **outputs},
        "required": list(outputs),
    }
