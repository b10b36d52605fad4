"""``ProxyComponent``: every object of a proxy as children of one component.

A proxy registers nothing (it announces itself over the broker); its config token is consumed
only as two environment variables by reference to its Secret, and the Secret goes into the
config checksum, so editing it rolls the pods.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pulumi

from .args.base import validated
from .args.errors import InvalidArgumentsError
from .args.proxy import BOM_TAG, ProxyArgs
from .children import create_children, retains
from .outputs import NOT_RENDERED, from_rendered, render_when_known, secret_if
from .references import ClusterReader, NoCluster, ReferenceReader, ResolvedReferences, checksum_input, resolve_references
from .render.proxy import endpoints, render_proxy

TYPE_TOKEN = "connectors:index:Proxy"


def validate_proxy_args(args: ProxyArgs | Mapping[str, Any], path: str = "") -> ProxyArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(ProxyArgs, args, path, heading="invalid proxy arguments")


class ProxyComponent(pulumi.ComponentResource):
    """A proxy's Deployment, two-port Service, ServiceAccount, NetworkPolicy and optional PDB
    and ServiceMonitor."""

    endpoint: pulumi.Output[str]
    api_endpoint: pulumi.Output[str]
    current_image: pulumi.Output[str]
    observed_version: pulumi.Output[str]
    config_checksum: pulumi.Output[str]
    children: dict[str, str]

    def __init__(
        self,
        name: str,
        args: ProxyArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        references: ResolvedReferences | None = None,
        reference_reader: ReferenceReader | NoCluster | None = None,
        kubeconfig: str | None = None,
        kube_context: str | None = None,
        label: str | None = None,
        secret_inputs: Collection[str] = (),
    ) -> None:
        """As ``ConnectorComponent``: ``references`` already resolved by the program, or read
        now with ``reference_reader`` (default: the cluster ``kubeconfig``/``kube_context`` name)."""
        label = label or f'proxy "{name}"'
        try:
            validated = validate_proxy_args(args)
            if references is None:
                references = resolve_references(validated, reference_reader or ClusterReader(kubeconfig, kube_context))
        except InvalidArgumentsError as error:
            raise error.about(label) from None
        super().__init__(TYPE_TOKEN, name, None, opts)

        rendered = secret_if(render_when_known(validated, render_proxy), bool(set(secret_inputs) - NOT_RENDERED))
        checksum = checksum_input(references)
        resources = create_children(self, name, rendered, checksum, validated.optional_kinds(), retains(opts))
        health, api = endpoints(validated.name, validated.namespace)
        self.endpoint = pulumi.Output.from_input(health)
        self.api_endpoint = pulumi.Output.from_input(api)
        self.current_image = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.current_image))
        tag = validated.image.tag if "tag" in validated.image.model_fields_set else BOM_TAG
        self.observed_version = pulumi.Output.from_input(tag)
        self.config_checksum = pulumi.Output.from_input(checksum)
        self.children = {kind: name for kind in resources}
        self.register_outputs(self.output_values())

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names."""
        return {
            "endpoint": self.endpoint,
            "api_endpoint": self.api_endpoint,
            "current_image": self.current_image,
            "observed_version": self.observed_version,
            "config_checksum": self.config_checksum,
            "children": self.children,
        }
