"""What is rendered: pure functions from validated arguments to plain Kubernetes objects (dicts),
one per kind, and the workload assembly both kinds share; it imports only the argument models."""

from __future__ import annotations

from components.args.connector_spec import ConnectorArgs
from components.args.proxy_spec import ProxyArgs
from components.render.connector import connector_optional_kinds, render_connector
from components.render.objects import OptionalKind, RenderedWorkload
from components.render.proxy import proxy_optional_kinds, render_proxy


def render_workload(args: ConnectorArgs | ProxyArgs) -> RenderedWorkload:
    """A connector's or a proxy's objects, by the kind of its arguments, without the pods'
    config checksum: the component stamps its own (``objects.stamp_checksum``), an Output when
    a referenced object comes from a resource."""
    return render_connector(args, None) if isinstance(args, ConnectorArgs) else render_proxy(args, None)


def optional_kinds(args: ConnectorArgs | ProxyArgs) -> tuple[OptionalKind, ...]:
    """The optional kinds a connector or a proxy may render (each rendered when its arguments ask)."""
    return connector_optional_kinds(args) if isinstance(args, ConnectorArgs) else proxy_optional_kinds(args)
