"""The package schema, generated from the pydantic models: never written by hand.

Each model becomes an object type (``connectors:index:<Model>`` without ``Args``), each field a
property under its camelCase alias with the field's docstring as description, each ``Literal``
an enum type, ``required`` from the field having no default. The component inputs are the
``...Args`` models plus ``PackageOptions``; the outputs are ``ConnectorOutputs``/``ProxyOutputs``.
"""

from __future__ import annotations

import types
import typing
from importlib.metadata import version
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from components.args.base import NotInPackage
from components.args.connector_spec import ConnectorArgs
from components.args.fields import digest, image_tag, int_or_percent, str_input
from components.args.platform_spec import PlatformArgs
from components.args.proxy_spec import ProxyArgs
from components.args.registration_spec import header_value
from components.machinery.component_outputs import ConnectorOutputs, PlatformOutputs, ProxyOutputs
from components.package import VERSION
from components.package.models import PackageOptions
from components.package.package_registration import schema_resource
from components.type_tokens import CONNECTOR as CONNECTOR_TYPE
from components.type_tokens import PACKAGE
from components.type_tokens import PLATFORM as PLATFORM_TYPE
from components.type_tokens import PROXY as PROXY_TYPE
from components.type_tokens import REGISTRATION as REGISTRATION_TYPE

ANY = {"$ref": "pulumi.json#/Any"}
KUBERNETES_PACKAGE = version("pulumi_kubernetes")
"""The Kubernetes package whose types the free-form blocks are (the one the SDK installed asks for)."""
KUBERNETES_RANGE = f">={KUBERNETES_PACKAGE},<5"
LANGUAGES = {
    "python": {
        "respectSchemaVersion": True,
        "packageName": "pulumi_connectors",
        "requires": {"pulumi-kubernetes": KUBERNETES_RANGE},
        "pyproject": {"enabled": True},
    },
    "nodejs": {
        "packageName": "@otilm/pulumi-connectors",
        "respectSchemaVersion": True,
        "dependencies": {"@pulumi/kubernetes": f"^{KUBERNETES_PACKAGE}"},
    },
    "go": {"importBasePath": "github.com/otilm/pulumi-connectors/sdk/go/connectors", "respectSchemaVersion": True},
    "csharp": {"rootNamespace": "Otilm", "respectSchemaVersion": True},
}
"""Where generated SDKs go (outside Pulumi's own npm scope and Go import path), and the
Kubernetes SDK each needs for the free-form blocks' types (the README shows these names)."""
TYPE_NAMES = {"RegistrationArgs": "ConnectorRegistration"}
"""Object types whose model's name is a resource's (Go would generate ``RegistrationTypeArgs``)."""


def in_package(info: FieldInfo) -> bool:
    """Whether a field is in the schema: all but those marked ``NotInPackage``."""
    return not any(isinstance(item, NotInPackage) for item in info.metadata)


# Argument types that are ``Any`` to pydantic (so that a Python caller may pass an Output) but
# have one wire type: the validator that checks them says which.
VALIDATED_TYPES: dict[Any, dict[str, Any]] = {
    str_input: {"type": "string"},
    image_tag: {"type": "string"},
    header_value: {"type": "string"},
    digest: {"type": "string"},
    int_or_percent: {"oneOf": [{"type": "integer"}, {"type": "string"}]},
}
COMPONENTS: dict[str, tuple[str, type[BaseModel], type[BaseModel]]] = {
    CONNECTOR_TYPE: (
        "A connector: its workload objects and its one registration with the platform.",
        ConnectorArgs,
        ConnectorOutputs,
    ),
    PROXY_TYPE: ("A proxy: the outbound-only bridge of a restricted zone to the platform's broker.", ProxyArgs, ProxyOutputs),
    PLATFORM_TYPE: (
        "A platform: core, auth, the scheduler, the gateway and the rest of what the reference operator's Platform renders.",
        PlatformArgs,
        PlatformOutputs,
    ),
}


def type_name(model: type[BaseModel]) -> str:
    return TYPE_NAMES.get(model.__name__) or model.__name__.removesuffix("Args").lstrip("_")


def pascal(name: str) -> str:
    return name[:1].upper() + name[1:]


class SchemaBuilder:
    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        self.models: dict[str, type[BaseModel]] = {}
        """The model of each object type: two models of one name would be one type to other languages."""

    def token(self, name: str) -> str:
        return f"{PACKAGE}:index:{name}"

    def ref(self, token: str) -> dict[str, Any]:
        return {"$ref": f"#/types/{token}"}

    def object_type(self, model: type[BaseModel]) -> dict[str, Any]:
        token = self.token(type_name(model))
        if self.models.setdefault(token, model) is not model:
            raise TypeError(f"{model.__module__}.{model.__name__} and {self.models[token].__name__} are both {token}: rename one")
        if token not in self.types:
            self.types[token] = {}  # reserved first: models may nest themselves
            properties, required = self.properties(model)
            self.types[token] = {
                "type": "object",
                "description": type_description(model),
                "properties": properties,
                **({"required": required} if required else {}),
            }
        return self.ref(token)

    def enum_type(self, owner: type[BaseModel], field: str, values: tuple[Any, ...]) -> dict[str, Any]:
        token = self.token(type_name(owner) + pascal(field))
        self.types[token] = {
            "type": "string",
            "description": f"The values {type_name(owner)}.{field} takes.",
            "enum": [{"value": v, **({} if v else {"name": "Unset"})} for v in values],
        }
        return self.ref(token)

    def properties(self, model: type[BaseModel]) -> tuple[dict[str, Any], list[str]]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field_name, info in model.model_fields.items():
            if not in_package(info):
                continue
            alias = info.alias or field_name
            spec = self.field_type(model, alias, info)
            properties[alias] = {**spec, "description": description(model, field_name, info)}
            if info.is_required():
                required.append(alias)
        return properties, required

    def field_type(self, owner: type[BaseModel], alias: str, info: FieldInfo) -> dict[str, Any]:
        special = special_type(info.metadata)
        return special if special is not None else self.type_of(owner, alias, info.annotation)

    def type_of(self, owner: type[BaseModel], alias: str, annotation: Any) -> dict[str, Any]:
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is Annotated:
            special = special_type(args[1:])
            return special if special is not None else self.type_of(owner, alias, args[0])
        if origin in (Union, types.UnionType):
            options = [a for a in args if a is not type(None)]
            if len(options) == 1:
                return self.type_of(owner, alias, options[0])
            return {"oneOf": [self.type_of(owner, alias, a) for a in options]}
        if origin is Literal:
            return self.enum_type(owner, alias, args)
        if origin is list:
            return {"type": "array", "items": self.type_of(owner, alias, args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.type_of(owner, alias, args[1])}
        if annotation is str:
            return {"type": "string"}
        if annotation is bool:
            return {"type": "boolean"}
        if annotation is int:
            return {"type": "integer"}
        if annotation is float:
            return {"type": "number"}
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.object_type(annotation)
        return dict(ANY)  # JsonValue, Any: free-form

    def component(self, text: str, inputs: type[BaseModel], outputs: type[BaseModel]) -> dict[str, Any]:
        input_properties, required_inputs = self.properties(inputs)
        option_properties, _ = self.properties(PackageOptions)
        output_properties, required_outputs = self.properties(outputs)
        return {
            "isComponent": True,
            "description": text,
            "inputProperties": {**input_properties, **option_properties},
            "requiredInputs": required_inputs,
            "properties": output_properties,
            "required": required_outputs,
        }


def special_type(metadata: Any) -> dict[str, Any] | None:
    """The wire type a field's validator says (``VALIDATED_TYPES``), or the Kubernetes type a
    free-form block is checked against, by reference to the Kubernetes package's schema."""
    for item in metadata:
        func = getattr(item, "func", None)
        if func in VALIDATED_TYPES:
            return dict(VALIDATED_TYPES[func])
        definition = getattr(func, "kubernetes_definition", None)
        if definition is not None:
            ref = {"$ref": kubernetes_type(definition)}
            return {"type": "array", "items": ref} if getattr(func, "each", False) else ref
    return None


def kubernetes_type(definition: str) -> str:
    """``io.k8s.api.core.v1.Toleration`` as a reference into the Kubernetes package's schema."""
    group_version, kind = definition.removeprefix("io.k8s.api.").rsplit(".", 1)
    group, version = group_version.rsplit(".", 1)
    return f"/kubernetes/v{KUBERNETES_PACKAGE}/schema.json#/types/kubernetes:{group}/{version}:{kind}"


def type_description(model: type[BaseModel]) -> str:
    text = model.__dict__.get("__doc__")
    if not text or not text.strip():
        raise TypeError(f"{model.__name__} has no docstring: the package schema needs its description")
    return " ".join(text.split())


def description(model: type[BaseModel], field_name: str, info: FieldInfo) -> str:
    text = info.description
    if not text:
        raise TypeError(f"{model.__name__}.{field_name} has no docstring: the package schema needs its description")
    return " ".join(text.split())


def package_schema() -> dict[str, Any]:
    builder = SchemaBuilder()
    resources = {token: builder.component(*parts) for token, parts in COMPONENTS.items()}
    resources[REGISTRATION_TYPE] = schema_resource()
    return {
        "name": PACKAGE,
        "displayName": "Connectors",
        "version": VERSION,
        "description": "Connectors and proxies of the platform on Kubernetes, with their registration.",
        "resources": resources,
        "types": dict(sorted(builder.types.items())),
        "language": LANGUAGES,
    }
