"""Connectors on Kubernetes as a Pulumi component library."""

from .args import ConnectorArgs, ConnectorEntry, ConnectorSpec
from .component import ConnectorComponent, validate_args
from .errors import InvalidArgumentsError

__all__ = [
    "ConnectorArgs",
    "ConnectorComponent",
    "ConnectorEntry",
    "ConnectorSpec",
    "InvalidArgumentsError",
    "validate_args",
]
