"""The workload kinds' arguments as one type, for the code both kinds go through."""

from __future__ import annotations

from components.args.connector_spec import ConnectorArgs, ConnectorEntry
from components.args.proxy_spec import ProxyArgs, ProxyEntry

__all__ = ["WorkloadArgs", "WorkloadEntry"]

WorkloadArgs = ConnectorArgs | ProxyArgs
"""A workload kind's arguments: its spec and its identity."""
WorkloadEntry = ConnectorEntry | ProxyEntry
"""An entry of a stack's ``connectors`` or ``proxies`` list."""
