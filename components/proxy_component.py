"""``ProxyComponent``: every object of a proxy as children of one component.

A proxy registers nothing (it announces itself over the broker); its config token is consumed
only as two environment variables by reference to its Secret, and the Secret goes into the
config checksum, so editing it rolls the pods.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pulumi

from components.args.base import validated
from components.args.proxy_spec import ProxyArgs
from components.kube.object_reader import ReferenceReader
from components.kube.proxy_token import check_config_token, token_reference
from components.kube.referenced_objects import ResolvedReferences, read_data, resolve_references
from components.machinery.component_outputs import ProxyOutputs
from components.machinery.workload_component import ComponentOutput, Prepared, WorkloadComponent, labelled
from components.render.proxy import endpoints
from components.type_tokens import PROXY

__all__ = ["ProxyComponent", "prepare_proxy", "validate_proxy_args"]


def validate_proxy_args(args: ProxyArgs | Mapping[str, Any], path: str = "") -> ProxyArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(ProxyArgs, args, path, heading="invalid proxy arguments")


def resolve_proxy_references(args: ProxyArgs, reader: ReferenceReader) -> ResolvedReferences:
    """The proxy's references, its token Secret first (checked: its token key there, not expired)."""
    token = token_reference(args.config_token_secret_ref, args.namespace)
    resolved = resolve_references(args, reader, own=[token])
    check_config_token(args.config_token_secret_ref, args.namespace, args.name, read_data(resolved, token))
    return resolved


def prepare_proxy(proxy: ProxyArgs, known: Prepared) -> Prepared:
    """What the proxy needs decided before anything is created, unless ``known`` holds it: its
    referenced objects read (the one place: the program calls it for every entry first)."""
    if known.references is not None:
        return known
    return replace(known, references=resolve_proxy_references(proxy, known.reader()))


class ProxyComponent(WorkloadComponent):
    """A proxy's Deployment, two-port Service, ServiceAccount, NetworkPolicy and optional PDB
    and ServiceMonitor."""

    endpoint = ComponentOutput()
    """The in-cluster URL of the proxy's health port (``pulumi.Output[str]``)."""
    api_endpoint = ComponentOutput()
    """The in-cluster URL of the proxy's API port (``pulumi.Output[str]``)."""
    observed_version = ComponentOutput()
    """The proxy version the image tag names (``pulumi.Output[str]``)."""
    OUTPUTS_MODEL = ProxyOutputs

    def __init__(
        self,
        name: str,
        args: ProxyArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        """As ``ConnectorComponent`` (a proxy registers nothing: ``prepared``'s route and
        registration type are not read)."""
        decided = prepared or Prepared()
        label, secret_inputs = decided.label or f'proxy "{name}"', decided.secret_inputs
        with labelled(label):
            proxy = validate_proxy_args(args)
            references = prepare_proxy(proxy, decided).references
        assert references is not None  # prepared
        super().__init__(PROXY, name, None, opts)
        planned = self.plan(name, proxy, references, secret_inputs, opts)
        for child in planned.children:  # made here, in the constructor's frame (children.py says why)
            planned.resources[child.kind] = child.make(name, **child.parts, opts=child.opts(planned.resources))
        self.attach_children(planned)
        health, api = endpoints(proxy.name, proxy.namespace)
        self.endpoint, self.api_endpoint, self.observed_version = health, api, proxy.image.tag
        self.register_outputs(self.output_values())
