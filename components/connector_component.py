"""``ConnectorComponent``: every object of a connector as children of one component, and its
registration with the platform."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import pulumi

from .admin_secret import read_admin_credentials
from .args.base import validated
from .args.connector_spec import ConnectorArgs
from .children import retains
from .connector_registration import create_registration, registration_route
from .outputs import from_rendered
from .reference_reader import ClusterReader, ReferenceReader
from .references import ResolvedReferences, resolve_references
from .registration import inputs
from .tokens import CONNECTOR
from .workload_component import WorkloadComponent, labelled

TYPE_TOKEN = CONNECTOR


def validate_args(args: ConnectorArgs | Mapping[str, Any], path: str = "") -> ConnectorArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(ConnectorArgs, args, path)


def resolve_connector_references(args: ConnectorArgs, reader: ReferenceReader) -> ResolvedReferences:
    """The connector's references, and its registration's administrator credentials when a
    Secret holds them."""
    resolved = resolve_references(args, reader)
    credentials = args.registration.admin_credentials if args.registration is not None else None
    if credentials is not None and credentials.secret_ref is not None:
        resolved.admin_credentials = read_admin_credentials(credentials.secret_ref, args.namespace, reader)
    return resolved


class ConnectorComponent(WorkloadComponent):
    """A connector's Deployment, Service, ServiceAccount and optional PDB, ServiceMonitor,
    NetworkPolicy and Ingress, plus its one-time registration with the platform."""

    endpoint: pulumi.Output[str]
    registration: Any

    def __init__(
        self,
        name: str,
        args: ConnectorArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        references: ResolvedReferences | None = None,
        reference_reader: ReferenceReader | None = None,
        kubeconfig: str | None = None,
        kube_context: str | None = None,
        label: str | None = None,
        secret_inputs: Collection[str] = (),
        registration_type: Callable[..., pulumi.CustomResource] | None = None,
        route: str | pulumi.Output[str] | None = None,
    ) -> None:
        """``label`` is how messages name this connector (default ``connector "<name>"``).

        ``references`` are the already-resolved referenced objects (the program resolves every
        connector's before creating any); otherwise they are read with ``reference_reader``, by
        default from the cluster that ``kubeconfig`` (a path or its content) and ``kube_context``
        name, else the ambient one, before anything is registered. The same cluster
        configuration gives the credentials of the registration's API-server proxy route;
        ``route`` is that route when already decided (the program decides every connector's first).

        ``secret_inputs``: top-level arguments (snake_case) that held a secret somewhere inside
        (a caller in another language marks values, not fields, secret): the objects rendered
        from them, or the registration's inputs, are then secret in state.
        ``registration_type``: the resource the registration is (the component package serves
        its own, so that no Python dynamic provider is needed in other languages)."""
        label = label or f'connector "{name}"'
        with labelled(label):
            connector = validate_args(args)
            reader = reference_reader or ClusterReader(kubeconfig, kube_context)
            if references is None:
                references = resolve_connector_references(connector, reader)
            reg = connector.registration
            if reg is not None and route is None:
                route = registration_route(reg, kubeconfig, kube_context, label)
        super().__init__(TYPE_TOKEN, name, None, opts)
        built = self.build(name, connector, references, secret_inputs, opts, not_rendered=frozenset({"registration"}))
        self.endpoint = pulumi.Output.from_input(from_rendered(built.rendered, lambda r: r.endpoint))
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
                depends_on=[built.resources["deployment"]],
                label=label,
                resource=registration_type,
                retain_on_delete=retains(opts),
            )
            pulumi.Output.from_input(route).apply(lambda r: pulumi.log.info(f"registration will use route {r}", resource=self))
        self.register_outputs(self.output_values())

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names."""
        outputs: dict[str, Any] = {"endpoint": self.endpoint, **super().output_values()}
        if self.registration is not None:
            outputs["registration"] = {o.python: getattr(self.registration, o.python) for o in inputs.OUTPUTS}
        return outputs
