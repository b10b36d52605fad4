"""The registration resource: registers a connector with the platform once, keeps the uuid.

A ``pulumi.dynamic`` resource. ``create`` registers; nothing else ever calls the platform.
The provider instance holds no client or credential (it is pickled into state): each method
builds what it needs.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, Resource, ResourceProvider, UpdateResult

OUTPUTS = ("uuid", "status", "registered_at")
INPUTS = (
    "platform_url",
    "name",
    "url",
    "auth_type",
    "auth_attributes",
    "custom_attributes",
    "connector_version",
    "retry_initial_seconds",
    "retry_max_seconds",
    "deadline_seconds",
    "ca_bundle",
    "insecure_skip_tls_verify",
    "route",
    "kubeconfig",
    "kube_context",
)


class RegistrationProvider(ResourceProvider):
    def create(self, props: dict[str, Any]) -> CreateResult:
        from components.cluster_access import NoClusterCredentials, load_access
        from components.platform_client import (
            RegistrationError,
            RetryPolicy,
            TlsSettings,
            direct,
            register,
            request_body,
            through_api_server,
        )

        body = request_body(
            props["name"],
            props.get("connector_version") or "v2",
            props["url"],
            props["auth_type"],
            props.get("auth_attributes"),
            props.get("custom_attributes"),
        )
        if props.get("route") == "apiServerProxy":
            try:
                access = load_access(props.get("kubeconfig"), props.get("kube_context"))
            except NoClusterCredentials as error:
                raise RegistrationError(str(error)) from None
            destination = through_api_server(props["platform_url"], access)
        else:
            tls = TlsSettings(props.get("ca_bundle"), bool(props.get("insecure_skip_tls_verify")))
            destination = direct(props["platform_url"], tls)
        registered = register(
            destination,
            body,
            RetryPolicy(
                float(props.get("retry_initial_seconds") or 5),
                float(props.get("retry_max_seconds") or 300),
                float(props.get("deadline_seconds") or 600),
            ),
        )
        outs = {
            **props,
            "uuid": registered.uuid,
            "status": registered.status,
            "registered_at": registered.registered_at,
        }
        return CreateResult(id_=registered.uuid, outs=outs)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """Never a replacement; the serialized provider is not an input of ours."""
        changed = [key for key in INPUTS if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changed), replaces=[], stables=list(OUTPUTS), delete_before_replace=False)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """New inputs, the registration's outputs carried forward unchanged."""
        return UpdateResult(outs={**news, **{key: olds.get(key) for key in OUTPUTS}})

    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        """Never de-registers: removing a connector from the platform is the user's act."""

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_=id_, outs=props)


TYPE_TOKEN = "pulumi-python:dynamic/connectors:Registration"
LEGACY_TYPE_TOKEN = "pulumi-python:dynamic:Resource"
"""The type every dynamic resource shared before the registration had its own: stacks created
then keep their registration (and its uuid) through an alias."""


class Registration(Resource, module="connectors", name="Registration"):
    """Registers ``url`` as connector ``name`` with the platform at ``platform_url``, once.

    Its type is ``pulumi-python:dynamic/connectors:Registration``, so that preview and
    ``pulumi stack --show-urns`` name it; ``aliases`` carries registrations created under the
    shared dynamic type over without calling the platform.

    ``route`` is the resolved route, ``direct`` or ``apiServerProxy`` (see ``routing``); for the
    proxy, ``kubeconfig`` (a path, or content given as a secret) and ``kube_context`` say which
    cluster configuration to load credentials from, inside ``create``."""

    uuid: pulumi.Output[str]
    status: pulumi.Output[str]
    registered_at: pulumi.Output[str]

    def __init__(
        self,
        resource_name: str,
        *,
        platform_url: pulumi.Input[str],
        name: pulumi.Input[str],
        url: pulumi.Input[str],
        auth_type: pulumi.Input[str],
        auth_attributes: pulumi.Input[list[Any]] | None = None,
        custom_attributes: pulumi.Input[list[Any]] | None = None,
        connector_version: pulumi.Input[str] = "v2",
        retry_initial_seconds: float = 5,
        retry_max_seconds: float = 300,
        deadline_seconds: float = 600,
        ca_bundle: str | None = None,
        insecure_skip_tls_verify: bool = False,
        route: pulumi.Input[str] = "direct",
        kubeconfig: pulumi.Input[str] | None = None,
        kube_context: str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "platform_url": platform_url,
            "name": name,
            "url": url,
            "auth_type": auth_type,
            "auth_attributes": auth_attributes or [],
            "custom_attributes": custom_attributes or [],
            "connector_version": connector_version,
            "retry_initial_seconds": retry_initial_seconds,
            "retry_max_seconds": retry_max_seconds,
            "deadline_seconds": deadline_seconds,
            "ca_bundle": ca_bundle,
            "insecure_skip_tls_verify": insecure_skip_tls_verify,
            "route": route,
            "kubeconfig": kubeconfig,
            "kube_context": kube_context,
            **{key: None for key in OUTPUTS},
        }
        opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(aliases=self.aliases()))
        super().__init__(RegistrationProvider(), resource_name, props, opts)

    @classmethod
    def aliases(cls) -> list[pulumi.Alias]:
        own = f"pulumi-python:{cls._resource_type_name}"
        return [] if own == LEGACY_TYPE_TOKEN else [pulumi.Alias(type_=LEGACY_TYPE_TOKEN)]
