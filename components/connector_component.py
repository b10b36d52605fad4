"""``ConnectorComponent``: every object of a connector as children of one component, and its
registration with the platform."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pulumi

from components.args.base import validated
from components.args.connector_spec import ConnectorArgs
from components.kube.admin_secret import read_admin_credentials
from components.kube.object_reader import ReferenceReader
from components.kube.referenced_objects import ResolvedReferences, resolve_references
from components.machinery.children import retains
from components.machinery.component_outputs import ConnectorOutputs
from components.machinery.connector_registration import planned_registration, registration_route
from components.machinery.output_values import from_rendered
from components.machinery.workload_component import ComponentOutput, Prepared, WorkloadComponent, labelled
from components.registration import contract
from components.type_tokens import CONNECTOR

__all__ = ["ConnectorComponent", "prepare_connector", "validate_args"]


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


def prepare_connector(connector: ConnectorArgs, known: Prepared) -> Prepared:
    """What the connector needs decided before anything is created, each unless ``known`` holds
    it already: its referenced objects read, its registration's route decided (refused now when it
    cannot work). The one place both are decided: the program calls it for every entry before it
    creates any component (one error for all), the component for itself."""
    references = known.references
    if references is None:
        references = resolve_connector_references(connector, known.reader())
    route, reg = known.route, connector.registration
    if reg is not None and route is None:
        route = registration_route(reg, known.kubeconfig, known.kube_context, known.label)
    return replace(known, references=references, route=route)


class ConnectorComponent(WorkloadComponent):
    """A connector's Deployment, Service, ServiceAccount and optional PDB, ServiceMonitor,
    NetworkPolicy and Ingress, plus its one-time registration with the platform."""

    endpoint = ComponentOutput()
    """The in-cluster URL of the connector's Service (``pulumi.Output[str]``)."""
    registration: Any
    OUTPUTS_MODEL = ConnectorOutputs

    def __init__(
        self,
        name: str,
        args: ConnectorArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        """Validates ``args``, reads the objects it references and decides its registration's
        route, before anything is created; ``prepared`` holds what the caller decided already."""
        decided = prepared or Prepared()
        label = decided.label or f'connector "{name}"'
        with labelled(label):
            connector = validate_args(args)
            decided = prepare_connector(connector, replace(decided, label=label))
        kubeconfig, kube_context, secret_inputs = decided.kubeconfig, decided.kube_context, decided.secret_inputs
        references, reg, route = decided.references, connector.registration, decided.route
        assert references is not None  # prepared
        super().__init__(CONNECTOR, name, None, opts)
        planned = self.plan(name, connector, references, secret_inputs, opts, not_rendered=frozenset({"registration"}))
        for child in planned.children:  # made here, in the constructor's frame (children.py says why)
            planned.resources[child.kind] = child.make(name, **child.parts, opts=child.opts(planned.resources))
        self.attach_children(planned)
        self.endpoint = from_rendered(planned.rendered, lambda r: r.endpoint)
        self.registration = None
        if reg is not None and route is not None:
            make, registration_name, values, registration_opts = planned_registration(
                self,
                name,
                reg,
                url=self.output_value("endpoint"),
                route=route,
                references=references,
                cluster=(kubeconfig, kube_context),
                secret_inputs=secret_inputs,
                depends_on=[planned.resources["deployment"]],
                label=label,
                resource=decided.registration_type,
                retain_on_delete=retains(opts),
            )
            self.registration = make(registration_name, opts=registration_opts, **values)
            pulumi.Output.from_input(route).apply(lambda r: pulumi.log.info(f"registration will use route {r}", resource=self))
        self.register_outputs(self.output_values())

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names; ``registration`` (the resource, an
        attribute) gives its outputs, or is left out for a connector that registers nothing."""
        outputs = {name: self.output_value(name) for name in self.OUTPUTS if name != "registration"}
        if self.registration is not None:
            outputs["registration"] = {o.python: getattr(self.registration, o.python) for o in contract.OUTPUTS}
        return outputs
