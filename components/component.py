"""``ConnectorComponent``: every object of a connector as children of one component."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import pulumi

from .args.base import validated
from .args.connector import ConnectorArgs
from .args.errors import InvalidArgumentsError
from .children import create_children, retains
from .connector_registration import create_registration, registration_route
from .outputs import NOT_RENDERED, from_rendered, render_when_known, secret_if
from .references import ClusterReader, NoCluster, ReferenceReader, ResolvedReferences, checksum_input, resolve_references
from .render.connector import render_connector

TYPE_TOKEN = "connectors:index:Connector"


def validate_args(args: ConnectorArgs | Mapping[str, Any], path: str = "") -> ConnectorArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(ConnectorArgs, args, path)


class ConnectorComponent(pulumi.ComponentResource):
    """A connector's Deployment, Service, ServiceAccount and optional PDB, ServiceMonitor,
    NetworkPolicy and Ingress, plus its one-time registration with the platform."""

    endpoint: pulumi.Output[str]
    current_image: pulumi.Output[str]
    config_checksum: pulumi.Output[str]
    registration: Any
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
        registration_type: Callable[..., pulumi.CustomResource] | None = None,
    ) -> None:
        """``label`` is how messages name this connector (default ``connector "<name>"``).

        ``references`` are the already-resolved referenced objects (the program resolves every
        connector's before creating any); otherwise they are read with ``reference_reader``, by
        default from the cluster that ``kubeconfig`` (a path or its content) and ``kube_context``
        name, else the ambient one, before anything is registered. The same cluster
        configuration gives the credentials of the registration's API-server proxy route.

        ``secret_inputs``: top-level arguments (snake_case) that held a secret somewhere inside
        (a caller in another language marks values, not fields, secret): the objects rendered
        from them, or the registration's inputs, are then secret in state.
        ``registration_type``: the resource the registration is (the component package serves
        its own, so that no Python dynamic provider is needed in other languages)."""
        label = label or f'connector "{name}"'
        try:
            validated = validate_args(args)
            if references is None:
                references = resolve_references(validated, reference_reader or ClusterReader(kubeconfig, kube_context))
            reg = validated.registration
            route = registration_route(reg, kubeconfig, kube_context, label) if reg is not None else None
        except InvalidArgumentsError as error:
            raise error.about(label) from None
        super().__init__(TYPE_TOKEN, name, None, opts)

        rendered = secret_if(
            render_when_known(validated, render_connector, exclude={"registration"}),
            bool(set(secret_inputs) - NOT_RENDERED),
        )
        checksum = checksum_input(references)
        resources = create_children(self, name, rendered, checksum, validated.optional_kinds(), retains(opts))

        self.endpoint = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.endpoint))
        self.current_image = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.current_image))
        self.config_checksum = pulumi.Output.from_input(checksum)
        self.children = {kind: name for kind in resources}
        self.registration = None
        if reg is not None and route is not None:
            self.registration = create_registration(
                self,
                name,
                reg,
                url=self.endpoint,
                route=route,
                references=references,
                cluster=(kubeconfig, kube_context),
                secret_inputs=secret_inputs,
                depends_on=[resources["deployment"]],
                label=label,
                resource=registration_type,
                retain_on_delete=retains(opts),
            )
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
