"""``ConnectorComponent``: every object of a connector as children of one component."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pulumi

from .args import ConnectorArgs, RegistrationArgs, validated
from .children import NOT_RENDERED, create_children, from_rendered, render_when_known, secret_if
from .cluster_access import has_credentials
from .errors import InvalidArgumentsError
from .references import ClusterReader, NoCluster, ReferenceReader, ResolvedReferences, checksum_input, resolve_references
from .registration import Registration
from .render.connector import render_connector
from .routing import RouteError, choose_route, url_problem

TYPE_TOKEN = "connectors:index:Connector"


def validate_args(args: ConnectorArgs | Mapping[str, Any], path: str = "") -> ConnectorArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(ConnectorArgs, args, path)


def registration_route(
    reg: RegistrationArgs, kubeconfig: str | None, kube_context: str | None, label: str | None = None
) -> str | pulumi.Output[str]:
    """The route the registration will take; a route that cannot work is refused now (or, for a
    platform URL that is an Output, when it is known; ``label`` then names the connector)."""

    def decide(platform_url: str) -> str:
        problem = url_problem(platform_url) if isinstance(platform_url, str) else "must be a string"
        if problem:
            raise InvalidArgumentsError([f"registration.platformUrl {problem}"], heading="registration cannot work")
        try:
            route = choose_route(reg.route, platform_url)
        except RouteError as error:
            raise InvalidArgumentsError([str(error)], heading="registration cannot work") from None
        if route == "apiServerProxy" and not has_credentials(kubeconfig, kube_context):
            raise InvalidArgumentsError(
                [
                    "platformUrl is an in-cluster address that does not resolve from here, so registration.route "
                    f"{reg.route} needs the API server's service proxy, but no cluster credentials (kubeconfig) were found"
                ],
                heading="registration cannot work",
            )
        if route == "apiServerProxy" and reg.admin_credentials is not None:
            raise InvalidArgumentsError([ADMIN_NEEDS_DIRECT], heading="registration cannot work")
        return route

    if isinstance(reg.platform_url, pulumi.Output):

        def decide_later(platform_url: str) -> str:
            try:
                return decide(platform_url)
            except InvalidArgumentsError as error:
                raise error.about(label) if label else error from None

        return reg.platform_url.apply(decide_later)
    return decide(reg.platform_url)


ADMIN_NEEDS_DIRECT = (
    "registration.adminCredentials need registration.route direct: the API server's service proxy (apiServerProxy) "
    "forwards neither an Authorization header nor a client certificate to the platform"
)


def admin_credentials_input(reg: RegistrationArgs, references: ResolvedReferences) -> dict[str, Any] | None:
    """The administrator's credentials as the registration takes them (always made secret there)."""
    if references.admin_credentials is not None:
        return dict(references.admin_credentials)
    given = reg.admin_credentials
    if given is None:
        return None
    values = {"bearerToken": given.bearer_token, "clientCertificate": given.client_certificate, "clientKey": given.client_key}
    return {key: value for key, value in values.items() if value is not None}


class ConnectorComponent(pulumi.ComponentResource):
    """A connector's Deployment, Service, ServiceAccount and optional PDB, ServiceMonitor,
    NetworkPolicy and Ingress, plus its one-time registration with the platform."""

    endpoint: pulumi.Output[str]
    current_image: pulumi.Output[str]
    config_checksum: pulumi.Output[str]
    registration: Registration | None
    children: dict[str, str]

    def __init__(
        self,
        name: str,
        args: ConnectorArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        references: ResolvedReferences | None = None,
        reference_reader: ReferenceReader | NoCluster | None = None,
        kubeconfig: str | None = None,
        kube_context: str | None = None,
        label: str | None = None,
        secret_inputs: Collection[str] = (),
    ) -> None:
        """``label`` is how messages name this connector (default ``connector "<name>"``).

        ``references`` are the already-resolved referenced objects (the program resolves every
        connector's before creating any); otherwise they are read with ``reference_reader``, by
        default from the cluster that ``kubeconfig`` (a path or its content) and ``kube_context``
        name, else the ambient one, before anything is registered. The same cluster
        configuration gives the credentials of the registration's API-server proxy route.

        ``secret_inputs``: top-level arguments (snake_case) that held a secret somewhere inside
        (a caller in another language marks values, not fields, secret): the objects rendered
        from them, or the registration's inputs, are then secret in state."""
        label = label or f'connector "{name}"'
        try:
            validated = validate_args(args)
            if references is None:
                references = resolve_references(validated, reference_reader or ClusterReader(kubeconfig, kube_context))
            route = None
            if validated.registration is not None:
                route = registration_route(validated.registration, kubeconfig, kube_context, label)
        except InvalidArgumentsError as error:
            raise error.about(label) from None
        super().__init__(TYPE_TOKEN, name, None, opts)

        rendered = secret_if(
            render_when_known(validated, render_connector, exclude={"registration"}),
            bool(set(secret_inputs) - NOT_RENDERED),
        )
        checksum = checksum_input(references)
        resources = create_children(self, name, rendered, checksum, validated.optional_kinds())
        deployment = resources["deployment"]

        self.endpoint = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.endpoint))
        self.current_image = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.current_image))
        self.config_checksum = pulumi.Output.from_input(checksum)
        self.children = {kind: name for kind in resources}
        self.registration = None
        reg = validated.registration
        if reg is not None:
            secret_registration = "registration" in secret_inputs
            self.registration = Registration(
                f"{name}-registration",
                platform_url=secret_if(reg.platform_url, secret_registration),
                name=secret_if(reg.name, secret_registration),
                url=self.endpoint,
                auth_type=reg.auth_type,
                # Credentials by nature: always kept as secrets in state.
                auth_attributes=pulumi.Output.secret([a.model_dump() for a in reg.auth_attributes]),
                custom_attributes=secret_if([a.model_dump() for a in reg.custom_attributes], secret_registration),
                connector_version=reg.version,
                retry_initial_seconds=reg.retry_initial_seconds,
                retry_max_seconds=reg.retry_max_seconds,
                deadline_seconds=reg.deadline_seconds,
                ca_bundle=secret_if(reg.ca_bundle, secret_registration),
                insecure_skip_tls_verify=reg.insecure_skip_tls_verify,
                route=route or "direct",
                kubeconfig=secret_if(kubeconfig, "\n" in (kubeconfig or "") or "kubeconfig" in secret_inputs),
                kube_context=kube_context,
                adopt_uuid=reg.uuid,
                admin_credentials=admin_credentials_input(reg, references),
                approve=reg.approve,
                deregister_on_destroy=reg.deregister_on_destroy,
                opts=pulumi.ResourceOptions(parent=self, depends_on=[deployment]),
            )
        if route is not None:
            pulumi.Output.from_input(route).apply(lambda r: pulumi.log.info(f"registration will use route {r}", resource=self))
        self.register_outputs(self.output_values())

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names."""
        outputs: dict[str, Any] = {
            "endpoint": self.endpoint,
            "current_image": self.current_image,
            "config_checksum": self.config_checksum,
            "children": self.children,
        }
        if self.registration is not None:
            outputs["registration"] = {
                "uuid": self.registration.uuid,
                "status": self.registration.status,
                "registered_at": self.registration.registered_at,
            }
        return outputs
