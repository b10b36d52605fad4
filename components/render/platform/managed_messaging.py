"""The managed broker: the RabbitMQ Cluster Operator's ``RabbitmqCluster`` and, for the Messaging
Topology Operator, the whole topology of the platform's version (its virtual host, users and
their permissions, exchanges, queues and bindings, from the bundle).

The operator renders no password: the Topology Operator generates each user's Secret,
``<user>-user-credentials`` (``username``, ``password``), and the Cluster Operator the client
Service named as the cluster; the platform reads both by name. Objects scoped to a virtual host
carry its slug in their names from 2.19.0 on (its default virtual host is ``/``), so two
versions' topologies can stand side by side; 2.18.0's names, and any on a virtual host the user
pinned, are unscoped, as the operator froze them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from components.args.platform_spec import PlatformArgs
from components.render.objects import Obj, merge_patch
from components.render.platform.resolve import Platform, metadata

RABBITMQ_API_VERSION = "rabbitmq.com/v1beta1"
AMQP_PORT = 5672
MANAGEMENT_PORT = 15672
MANAGEMENT_PATH = "/mq"
LEGACY_VIRTUAL_HOST = "czertainly"
"""The virtual host whose objects' names carry no scope (2.18.0's default)."""
CREDENTIALS_SUFFIX = "-user-credentials"


def messaging_managed(args: PlatformArgs) -> bool:
    return args.messaging.mode == "managed" and args.messaging.managed is not None


def broker_name(platform: Platform) -> str:
    """The RabbitmqCluster's name, and so its client Service's: the platform's host for the broker."""
    return f"{platform.name}-messaging"


def virtual_host(platform: Platform) -> str:
    return platform.args.messaging.virtual_host or platform.bundle.default_virtual_host


def user_name(platform: Platform, role: str) -> str:
    return f"{broker_name(platform)}-{role}"


def credentials_secret(platform: Platform, role: str) -> str:
    """The Secret the Topology Operator generates for the user of ``role``."""
    return user_name(platform, role) + CREDENTIALS_SUFFIX


def sanitized(name: str) -> str:
    """A broker name as a Kubernetes name: lower-case letters, digits and ``-``, anything else ``-``."""
    return "".join(c if c in "abcdefghijklmnopqrstuvwxyz0123456789-" else c.lower() if "A" <= c <= "Z" else "-" for c in name)


def _slug(vhost: str) -> str:
    """A virtual host in a name: itself when it already reads as one, else a readable part and
    a hash of it (``/`` is ``default``)."""
    if vhost == "/":
        return "default"
    base = sanitized(vhost).strip("-")
    faithful = base != "" and base == vhost and base != "default"
    base = base or "default"
    if len(base) > 24:
        base, faithful = base[:24].strip("-"), False
    return base if faithful else f"{base}-{hashlib.sha256(vhost.encode()).hexdigest()[:8]}"


def _scoped(platform: Platform, suffix: str) -> str:
    vhost = virtual_host(platform)
    pinned = bool(platform.args.messaging.virtual_host)
    scope = "" if vhost == LEGACY_VIRTUAL_HOST or pinned else f"-{_slug(vhost)}"
    return f"{broker_name(platform)}{scope}-{suffix}"


def _object(platform: Platform, kind: str, name: str, spec: Obj, role: str = "messaging-topology") -> Obj:
    return {"apiVersion": RABBITMQ_API_VERSION, "kind": kind, "metadata": metadata(platform, name, role), "spec": spec}


def _cluster(platform: Platform) -> Obj:
    managed = platform.args.messaging.managed
    assert managed is not None
    persistence: Obj = {"storage": managed.storage.size}
    if managed.storage.storage_class:
        persistence["storageClassName"] = managed.storage.storage_class
    spec: Obj = {"replicas": managed.replicas, "persistence": persistence}
    if managed.version:
        spec["image"] = f"rabbitmq:{managed.version}-management"
    if managed.resources is not None:
        spec["resources"] = managed.resources
    if platform.args.messaging.management.expose:
        spec["rabbitmq"] = {"additionalConfig": f"management.path_prefix = {MANAGEMENT_PATH}\n"}
    cluster = _object(platform, "RabbitmqCluster", broker_name(platform), spec, role="messaging")
    return merge_patch(cluster, managed.overrides or {})  # what the platform reads is kept: see MESSAGING_KEPT


def _topology(platform: Platform) -> list[Obj]:
    topology, vhost = platform.bundle.topology, virtual_host(platform)
    cluster = {"rabbitmqClusterReference": {"name": broker_name(platform)}}
    on_vhost = {"vhost": vhost, **cluster}
    objects = [_object(platform, "Vhost", _scoped(platform, "vhost"), {"name": vhost, **cluster})]
    for user in topology.users:
        spec: Obj = {**cluster, "tags": list(user.tags)} if user.tags else {**cluster}
        objects.append(_object(platform, "User", user_name(platform, user.role), spec))
    for user in topology.users:
        granted = user.permissions
        spec = {
            "vhost": vhost,
            "userReference": {"name": user_name(platform, user.role)},
            "permissions": {"configure": granted.configure, "write": granted.write, "read": granted.read},
            **cluster,
        }
        objects.append(_object(platform, "Permission", _scoped(platform, f"{user.role}-permission"), spec))
    for exchange in topology.exchanges:
        spec = {"name": exchange.name, "type": exchange.type, "durable": exchange.durable, **on_vhost}
        objects.append(_object(platform, "Exchange", _scoped(platform, f"exchange-{sanitized(exchange.name)}"), spec))
    for queue in topology.queues:
        spec = {"name": queue.name, "durable": queue.durable, **on_vhost}
        if queue.arguments:
            spec["arguments"] = dict(queue.arguments)
        objects.append(_object(platform, "Queue", _scoped(platform, f"queue-{sanitized(queue.name)}"), spec))
    for binding in topology.bindings:
        spec = {
            "source": binding.source,
            "destination": binding.destination,
            "destinationType": "queue",
            "routingKey": binding.routing_key,
            **on_vhost,
        }
        name = _scoped(platform, f"binding-{sanitized(binding.source + '-' + binding.destination)}")
        objects.append(_object(platform, "Binding", name, spec))
    return objects


def managed_messaging_objects(platform: Platform) -> list[Obj]:
    """The RabbitmqCluster and its topology for a managed broker; nothing for an external one."""
    if not messaging_managed(platform.args):
        return []
    return [_cluster(platform), *_topology(platform)]


def management_route(platform: Platform) -> Obj | None:
    """The gateway's service publishing a managed broker's management UI on ``/mq``, when asked."""
    if not (messaging_managed(platform.args) and platform.args.messaging.management.expose):
        return None
    return {
        "name": "messaging-service",
        "host": broker_name(platform),
        "port": MANAGEMENT_PORT,
        "routes": [
            {"name": "rabbitmq", "strip_path": False, "preserve_host": True, "paths": [f"{MANAGEMENT_PATH}/"]},
            {"name": "rabbitmq-slash-redirect", "strip_path": True, "preserve_host": True, "paths": [MANAGEMENT_PATH]},
        ],
    }


def running_version(stored: Mapping[str, Any] | None) -> str | None:
    """The RabbitMQ version a stored RabbitmqCluster runs, read off its image's tag (``4.0`` of
    ``rabbitmq:4.0-management``); None without a cluster or a tag."""
    image = ((stored or {}).get("spec") or {}).get("image")
    if not isinstance(image, str) or ":" not in image:
        return None
    tag = image.rsplit(":", 1)[1]
    return tag.removesuffix("-management") if tag and "/" not in tag else None


def holding_broker(args: PlatformArgs, version: str | None) -> PlatformArgs:
    """``args`` with the managed broker kept at ``version`` (None: as asked)."""
    managed = args.messaging.managed
    if version is None or managed is None:
        return args
    messaging = args.messaging.model_copy(update={"managed": managed.model_copy(update={"version": version})})
    return args.model_copy(update={"messaging": messaging})
