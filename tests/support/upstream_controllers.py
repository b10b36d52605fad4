"""Test controllers playing, on the local API server, the part of the controllers a platform's
cluster runs and this one does not: CloudNativePG (a ``Cluster`` gets its application Secret
and its ``-rw``, ``-ro`` and ``-r`` Services, a ``Pooler`` its Service, as CloudNativePG names
and fills them), the RabbitMQ Cluster Operator (a ``RabbitmqCluster`` gets its client Service,
named as the cluster, and its default user's Secret), the Messaging Topology Operator (a
``User`` gets its ``<user>-user-credentials`` Secret) and an ingress controller (an ``Ingress``
gets a load balancer address in its status, which the Kubernetes provider waits for). They poll
the whole cluster on a thread and stop when their ``with`` block ends."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kubernetes import client
from kubernetes.client.exceptions import ApiException

CNPG = ("postgresql.cnpg.io", "v1")
RABBITMQ = ("rabbitmq.com", "v1beta1")
PASSWORD = "first"
"""The application owner's password the stand-in generates."""


def _create(call: Any, *args: Any) -> None:
    try:
        call(*args)
    except ApiException as error:
        if error.status != 409:
            raise


def _service(name: str, ports: dict[str, int] | None = None) -> dict[str, Any]:
    listed = [{"name": key, "port": port} for key, port in (ports or {"postgres": 5432}).items()]
    return {"metadata": {"name": name}, "spec": {"ports": listed, "selector": {"stand-in/for": name}}}


def _secret(name: str, values: dict[str, str], kind: str = "Opaque") -> dict[str, Any]:
    data = {key: base64.b64encode(value.encode()).decode() for key, value in values.items()}
    return {"metadata": {"name": name}, "type": kind, "data": data}


def _application_secret(cluster: dict[str, Any]) -> dict[str, Any]:
    """The ``<cluster>-app`` Secret, with CloudNativePG's keys."""
    name, ns = cluster["metadata"]["name"], cluster["metadata"]["namespace"]
    initdb = cluster["spec"].get("bootstrap", {}).get("initdb", {})
    owner, database = initdb.get("owner", "app"), initdb.get("database", "app")
    host = f"{name}-rw"
    values = {
        "username": owner,
        "password": PASSWORD,
        "host": host,
        "port": "5432",
        "dbname": database,
        "uri": f"postgresql://{owner}:{PASSWORD}@{host}.{ns}:5432/{database}",
        "jdbc-uri": f"jdbc:postgresql://{host}.{ns}:5432/{database}?password={PASSWORD}&user={owner}",
        "pgpass": f"{host}:5432:{database}:{owner}:{PASSWORD}\n",
    }
    return _secret(f"{name}-app", values, "kubernetes.io/basic-auth")


def _listed(custom: client.CustomObjectsApi, group: tuple[str, str], plural: str) -> list[dict[str, Any]]:
    """Every object of a kind; none while its CRD is not installed."""
    try:
        return list(custom.list_cluster_custom_object(*group, plural)["items"])
    except ApiException as error:
        if error.status == 404:
            return []
        raise


def _cloudnative_pg_pass(core: client.CoreV1Api, custom: client.CustomObjectsApi) -> None:
    for cluster in _listed(custom, CNPG, "clusters"):
        name, ns = cluster["metadata"]["name"], cluster["metadata"]["namespace"]
        for suffix in ("rw", "ro", "r"):
            _create(core.create_namespaced_service, ns, _service(f"{name}-{suffix}"))
        _create(core.create_namespaced_secret, ns, _application_secret(cluster))
    for pooler in _listed(custom, CNPG, "poolers"):
        _create(core.create_namespaced_service, pooler["metadata"]["namespace"], _service(pooler["metadata"]["name"]))


def _rabbitmq_pass(core: client.CoreV1Api, custom: client.CustomObjectsApi) -> None:
    for cluster in _listed(custom, RABBITMQ, "rabbitmqclusters"):
        name, ns = cluster["metadata"]["name"], cluster["metadata"]["namespace"]
        _create(core.create_namespaced_service, ns, _service(name, {"amqp": 5672, "management": 15672}))
        _create(core.create_namespaced_secret, ns, _secret(f"{name}-default-user", {"username": "default", "password": PASSWORD}))
    for user in _listed(custom, RABBITMQ, "users"):
        name, ns = user["metadata"]["name"], user["metadata"]["namespace"]
        credentials = {"username": f"{name}-generated", "password": PASSWORD}
        _create(core.create_namespaced_secret, ns, _secret(f"{name}-user-credentials", credentials))


def _ingress_pass(networking: client.NetworkingV1Api) -> None:
    for ingress in networking.list_ingress_for_all_namespaces().items:
        if not (ingress.status and ingress.status.load_balancer and ingress.status.load_balancer.ingress):
            status = {"status": {"loadBalancer": {"ingress": [{"ip": "192.0.2.10"}]}}}
            networking.patch_namespaced_ingress_status(ingress.metadata.name, ingress.metadata.namespace, status)


@contextmanager
def playing_upstream_controllers(api: client.ApiClient, every: float = 0.5) -> Iterator[None]:
    core, custom, networking = client.CoreV1Api(api), client.CustomObjectsApi(api), client.NetworkingV1Api(api)
    stop, failures = threading.Event(), []

    def loop() -> None:
        while not stop.is_set():
            try:
                _cloudnative_pg_pass(core, custom)
                _rabbitmq_pass(core, custom)
                _ingress_pass(networking)
            except Exception as error:  # kept for the test, which fails with it
                failures.append(error)
                return
            stop.wait(every)

    thread = threading.Thread(target=loop, name="upstream-controllers", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=10)
    assert failures == [], failures
