"""The connector and the proxy served over Pulumi's provider protocol, for any language.

A consumer's inputs arrive as the engine sends them: plain values, with the values that come
from other resources or are secret as Outputs (at any depth). They are settled here into plain
values for validation, which therefore says the same as for a Python caller; what was secret is
kept secret by the component (``secret_inputs``), and a value still unknown at preview stays an
unknown Output where the models take Outputs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi.provider as provider
from pydantic.alias_generators import to_snake

from components.args.problems import InvalidArgumentsError
from components.connector_component import ConnectorComponent
from components.kube.object_reader import ClusterReader, NoCluster, ReferenceReader
from components.machinery.output_values import camel_case_keys
from components.machinery.workload_component import Prepared
from components.package import VERSION
from components.package.models import PackageOptions
from components.package.package_registration import PackageRegistration
from components.package.provider_server import Unknown, resolved, serve, unknown_output
from components.package.schema import package_schema
from components.platform_component import PlatformComponent, validate_platform_args
from components.platform_preparation import prepare_platform
from components.proxy_component import ProxyComponent
from components.type_tokens import CONNECTOR as CONNECTOR_TYPE
from components.type_tokens import PLATFORM as PLATFORM_TYPE
from components.type_tokens import PROXY as PROXY_TYPE


@dataclass
class SettledInputs:
    """The consumer's inputs as plain values, and the top-level fields that held a secret."""

    values: dict[str, Any]
    secret_fields: set[str] = field(default_factory=set)


def settle(inputs: Mapping[str, Any]) -> SettledInputs:
    """Plain values for the consumer's inputs. The Outputs the provider server makes of them
    are already resolved (their data came in the request), so they are read without waiting.
    Whole numbers become ints (an integer field takes them; a float field takes ints too)."""
    settled = SettledInputs({})

    def plain(value: Any, top: str) -> Any:
        if isinstance(value, Unknown):
            return unknown_output()
        if isinstance(value, pulumi.Output):
            data = resolved(value)
            if data is None:
                raise InvalidArgumentsError([f"{top}: a value that is not resolved yet"])
            if data.secret:
                settled.secret_fields.add(top)
            if not data.known:
                return unknown_output()
            return plain(data.value, top)
        if isinstance(value, Mapping):
            return {key: plain(item, top) for key, item in value.items()}
        if isinstance(value, list):
            return [plain(item, top) for item in value]
        if isinstance(value, float) and value.is_integer():
            return int(value)  # the protocol's numbers are all doubles: 2 arrives as 2.0
        return value

    for key, value in inputs.items():
        settled.values[key] = plain(value, key)
    return settled


def package_options(values: dict[str, Any]) -> tuple[PackageOptions, dict[str, Any]]:
    """The package's own inputs, and the rest: the component's arguments."""
    own = {key: values.pop(key) for key in list(values) if key in {f.alias for f in PackageOptions.model_fields.values()}}
    return PackageOptions.model_validate(own), values


def reader_for(options: PackageOptions) -> ReferenceReader:
    if not options.read_references:
        return NoCluster()
    return ClusterReader(options.kubeconfig, options.kube_context)


class ConnectorsProvider(provider.Provider):
    def __init__(self) -> None:
        super().__init__(VERSION, json.dumps(package_schema()))

    def construct(
        self, name: str, resource_type: str, inputs: pulumi.Inputs, options: pulumi.ResourceOptions | None = None
    ) -> provider.ConstructResult:
        label = f'{resource_type.rsplit(":", 1)[-1].lower()} "{name}"'
        try:
            settled = settle(inputs)
            package, args = package_options(settled.values)
            secret = {to_snake(key) for key in settled.secret_fields}
            prepared = Prepared(
                label=label,
                reference_reader=reader_for(package),
                kubeconfig=package.kubeconfig,
                kube_context=package.kube_context,
                secret_inputs=secret,
                registration_type=PackageRegistration,
            )
            component: ConnectorComponent | ProxyComponent | PlatformComponent
            if resource_type == PLATFORM_TYPE:
                platform = validate_platform_args(args)
                component = PlatformComponent(name, platform, options, prepare_platform(platform, reader_for(package)))
            elif resource_type == CONNECTOR_TYPE:
                component = ConnectorComponent(name, args, options, prepared)
            elif resource_type == PROXY_TYPE:
                component = ProxyComponent(name, args, options, prepared)
            else:
                raise pulumi.InputPropertyError("type", f"unknown resource type {resource_type}")
        except InvalidArgumentsError as error:
            raise as_input_errors(error, label) from None
        return provider.ConstructResult(urn=component.urn, state=camel_case_keys(component.output_values()))


def as_input_errors(error: InvalidArgumentsError, label: str) -> pulumi.InputPropertiesError:
    """Every problem in the message, by its path, without the label (the engine names the
    resource) and with no traceback. No per-property details: the engine would print each
    property's value beside them, and any value may be a secret."""
    problems = [problem.removeprefix(f"{label}: ") for problem in error.problems]
    return pulumi.InputPropertiesError(str(InvalidArgumentsError(problems, error.heading)), [])


def main() -> None:
    serve(ConnectorsProvider(), sys.argv[1:])
