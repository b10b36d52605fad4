"""``Registration``, the dynamic resource a connector's record on the platform is kept in, and
the program's early start of the process that serves it."""

from __future__ import annotations

import contextlib
from typing import Any

import pulumi
from pulumi.dynamic import Resource

from components.registration import contract
from components.registration.provider import RegistrationProvider
from components.type_tokens import DYNAMIC_REGISTRATION, LEGACY_DYNAMIC_REGISTRATION, PACKAGE

__all__ = ["LEGACY_TYPE_TOKEN", "TYPE_TOKEN", "Registration", "start_provider_early"]

LEGACY_TYPE_TOKEN = LEGACY_DYNAMIC_REGISTRATION
"""The type every dynamic resource shared before the registration had its own: stacks created
then keep their registration (and its uuid) through an alias."""


def secret_where_always(props: dict[str, Any]) -> dict[str, Any]:
    """The inputs, those the table keeps always secret (credentials) made secret Outputs."""
    return {k: pulumi.Output.secret(v) if k in contract.ALWAYS_SECRET and v is not None else v for k, v in props.items()}


class Registration(Resource, module=PACKAGE, name="Registration"):
    """Registers ``url`` as connector ``name`` with the platform at ``platform_url``, once.

    Its inputs are ``contract.TABLE`` (keyword arguments, their defaults there). Its type is
    ``pulumi-python:dynamic/connectors:Registration``, so that preview and ``pulumi stack
    --show-urns`` name it; ``aliases`` carries registrations created under the shared dynamic
    type over without calling the platform.

    ``route`` is the resolved route, ``direct`` or ``apiServerProxy`` (see ``contract.choose_route``); for the
    proxy, ``kubeconfig`` (a path, or content given as a secret) and ``kube_context`` say which
    cluster configuration to load credentials from, inside ``create``. ``admin_credentials``
    (``{bearerToken}`` or ``{clientCertificate, clientKey}``) and ``auth_attributes`` are always
    kept secret."""

    type_token = DYNAMIC_REGISTRATION
    uuid: pulumi.Output[str]
    status: pulumi.Output[str]
    registered_at: pulumi.Output[str]

    def __init__(self, resource_name: str, *, opts: pulumi.ResourceOptions | None = None, **given: Any) -> None:
        props = secret_where_always(contract.with_defaults(given))
        opts = pulumi.ResourceOptions.merge(
            opts,
            pulumi.ResourceOptions(
                aliases=self.aliases(),
                additional_secret_outputs=list(contract.ALWAYS_SECRET),
                # The platform holds one record per name and url+version: the old one must go
                # (when de-registering is allowed) before its replacement registers.
                delete_before_replace=True,
            ),
        )
        super().__init__(RegistrationProvider(), resource_name, {**props, **dict.fromkeys(contract.OUTPUT_NAMES)}, opts)

    @staticmethod
    def aliases() -> list[pulumi.Alias]:
        return [pulumi.Alias(type_=LEGACY_TYPE_TOKEN)]


TYPE_TOKEN = Registration.type_token
START_CALL = "pulumi-python:dynamic:startRegistrationProvider"
"""A function the registrations' provider does not implement: calling it starts the provider."""


def start_provider_early() -> pulumi.Output[None]:
    """Starts the registrations' provider process at the start of the program.

    The engine starts a provider when a resource or a call first needs it. A registration is
    sent once its Deployment is Ready, so the provider's process (a Python interpreter loading
    the SDK, docs/performance.md) used to start on the path from Ready to the registration
    request, for the first connectors (README, Performance, P4). A call to a function makes the
    engine start the provider now; the dynamic provider implements none, so its refusal is the
    expected answer, and any other failure is left for the registrations themselves to report.
    The returned Output is awaited by the SDK before the program ends."""

    async def start() -> None:
        with contextlib.suppress(Exception):  # the refusal is the expected answer
            await pulumi.runtime.invoke_async(START_CALL, {})

    return pulumi.Output.from_input(start())
