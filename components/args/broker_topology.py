"""The broker topology each platform version declares on a managed RabbitMQ, as data.

Its users (their tags and permissions), exchanges, queues and bindings, which the Messaging
Topology Operator turns into the broker's own objects. Part of a version's bundle
(``platform_bundles``), from the same source: ``pkg/bom/bom.go`` of ``OmniTrustILM/operator``.
2.19.0 renamed the exchanges, gave the default virtual host up for ``/``, and added the
provider status-poll queue; 2.20.0 (a preview) declares 2.19.0's.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TOPOLOGY_2180", "TOPOLOGY_2190", "Binding", "Exchange", "Permissions", "Queue", "Topology", "User"]


@dataclass(frozen=True)
class Permissions:
    configure: str
    write: str
    read: str


@dataclass(frozen=True)
class User:
    role: str
    """The user's part: its name is the broker's name and the role (``ilm-messaging-core``)."""
    tags: tuple[str, ...]
    permissions: Permissions


@dataclass(frozen=True)
class Exchange:
    name: str
    type: str
    durable: bool = True


@dataclass(frozen=True)
class Queue:
    name: str
    durable: bool = True
    arguments: tuple[tuple[str, int | str], ...] = ()


@dataclass(frozen=True)
class Binding:
    source: str
    destination: str
    routing_key: str


@dataclass(frozen=True)
class Topology:
    users: tuple[User, ...]
    exchanges: tuple[Exchange, ...]
    queues: tuple[Queue, ...]
    bindings: tuple[Binding, ...]


ALL = Permissions(".*", ".*", ".*")
LATEST_ONLY = (("x-max-length", 1), ("x-overflow", "drop-head"))
"""A queue that keeps only its newest message."""


def _users(exchange: str, core_read: str) -> tuple[User, ...]:
    return (
        User("administrator", ("administrator",), ALL),
        User("provisioner", ("administrator",), ALL),
        User("proxy", (), Permissions("", f"^{exchange}-proxy$", r"^proxy\..*$")),
        User("core", (), Permissions("", f"^{exchange}(-proxy)?$", core_read)),
        User("monitor", (), Permissions("", f"^{exchange}$", r"^time-quality\.config$")),
    )


_CORE_QUEUES = (
    "core",
    "core.audit-logs",
    "core.notifications",
    "core.scheduler",
    "core.actions",
    "core.validation",
    "core.events",
)
_TIME_QUALITY = (
    Queue("time-quality.config", arguments=LATEST_ONLY),
    Queue("time-quality.config-request", arguments=LATEST_ONLY),
    Queue("time-quality.results"),
)
_CORE_KEYS = (
    ("core.audit-logs", "audit-logs"),
    ("core.notifications", "notification"),
    ("core.actions", "action"),
    ("core.scheduler", "scheduler"),
    ("core.validation", "validation"),
    ("core.events", "event"),
)
_TIME_QUALITY_KEYS = tuple((q.name, q.name) for q in _TIME_QUALITY)
_STATUS_POLL = "provider.status-poll"


def _bindings(exchange: str, keys: tuple[tuple[str, str], ...]) -> tuple[Binding, ...]:
    return tuple(Binding(exchange, queue, key) for queue, key in keys)


TOPOLOGY_2180 = Topology(
    users=_users("czertainly", r"^core(\..+|-.+)?$|^time-quality\.(config-request|results)$"),
    exchanges=(Exchange("czertainly", "direct"), Exchange("czertainly-proxy", "topic")),
    queues=(*(Queue(q) for q in _CORE_QUEUES), *_TIME_QUALITY),
    bindings=_bindings("czertainly", _CORE_KEYS + _TIME_QUALITY_KEYS),
)
TOPOLOGY_2190 = Topology(
    users=_users("ilm", r"^core(\..+|-.+)?$|^provider\.status-poll$|^time-quality\.(config-request|results)$"),
    exchanges=(Exchange("ilm", "direct"), Exchange("ilm-proxy", "topic")),
    queues=(*(Queue(q) for q in _CORE_QUEUES), Queue(_STATUS_POLL), *_TIME_QUALITY),
    bindings=_bindings("ilm", (*_CORE_KEYS, (_STATUS_POLL, _STATUS_POLL), *_TIME_QUALITY_KEYS)),
)
