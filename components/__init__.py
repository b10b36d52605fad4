"""Connectors on Kubernetes as a Pulumi component library.

The public names load on first use: the registration's provider process imports
``components.registration`` alone, and must not pay for the models and the renderer (on the
path from a Ready Deployment to its registration).

The layout (ARCHITECTURE.md): the components here; ``args/`` what a user writes, ``render/`` what
is rendered, ``machinery/`` what turns both into a component's children, ``kube/`` what is read
from the cluster, ``registration/`` the registration with the platform over ``bounded_http/``,
``package/`` the same for other languages. ``app/`` is the application (the program and the
main command): nothing here imports it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from components.args.connector_spec import ConnectorArgs, ConnectorEntry, ConnectorSpec
    from components.args.problems import InvalidArgumentsError
    from components.args.proxy_spec import ProxyArgs, ProxyEntry, ProxySpec
    from components.connector_component import ConnectorComponent, validate_args
    from components.machinery.workload_component import Prepared
    from components.proxy_component import ProxyComponent, validate_proxy_args
    from components.registration.resource import Registration

_WHERE = {
    "ConnectorArgs": ".args.connector_spec",
    "ConnectorEntry": ".args.connector_spec",
    "ConnectorSpec": ".args.connector_spec",
    "ConnectorComponent": ".connector_component",
    "validate_args": ".connector_component",
    "ProxyArgs": ".args.proxy_spec",
    "ProxyEntry": ".args.proxy_spec",
    "ProxySpec": ".args.proxy_spec",
    "ProxyComponent": ".proxy_component",
    "validate_proxy_args": ".proxy_component",
    "Registration": ".registration.resource",
    "InvalidArgumentsError": ".args.problems",
    "Prepared": ".machinery.workload_component",
}

__all__ = [
    "ConnectorArgs",
    "ConnectorComponent",
    "ConnectorEntry",
    "ConnectorSpec",
    "InvalidArgumentsError",
    "Prepared",
    "ProxyArgs",
    "ProxyComponent",
    "ProxyEntry",
    "ProxySpec",
    "Registration",
    "validate_args",
    "validate_proxy_args",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name], __name__), name)
