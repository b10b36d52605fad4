"""``PlatformComponent``: every object of a platform as children of one component.

With what ``platform_preparation`` decided: the managed database's and broker's objects are
created first; auth's connection string is composed from the database credentials (read before
the run, or once a managed database's operator made them) into the ``auth-db`` Secret (a secret
in state, never in a rendered folder: without a cluster to read from it is left out, and said
so), and their hash is stamped on the pods of core, auth and the scheduler, so an edit of the
credentials rolls them, and they wait for what they read.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Mapping
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.args.base import validated
from components.args.platform_spec import PlatformArgs
from components.machinery.children import owned_by_the_program
from components.platform_preparation import PlatformPrepared
from components.render.checksum import ReferencedData, config_checksum
from components.render.objects import Obj, stamp_checksum
from components.render.platform import render_platform
from components.render.platform.connections import database
from components.render.platform.managed_database import CNPG_API_VERSION, holding
from components.render.platform.managed_messaging import RABBITMQ_API_VERSION, holding_broker
from components.render.platform.resolve import metadata, platform_of
from components.render.platform.services import AUTH_DB_KEY, AUTH_DB_SECRET
from components.render.workload import in_cluster_url
from components.type_tokens import PLATFORM

__all__ = ["PlatformComponent", "platform_api_endpoint", "validate_platform_args"]

ROLLED_BY_CREDENTIALS = ("core", "auth", "scheduler")
"""The workloads that read the database's credentials."""
CORE_API_PATH = "/api"
MANAGED_INFRASTRUCTURE = (CNPG_API_VERSION, RABBITMQ_API_VERSION)
"""The API versions of the objects an upstream operator turns into the platform's data: left in
the cluster when they leave the stack, unless ``deletionPolicy`` is ``Delete``."""

TYPED: dict[tuple[str, str], Any] = {
    ("v1", "ServiceAccount"): k8s.core.v1.ServiceAccount,
    ("v1", "Service"): k8s.core.v1.Service,
    ("v1", "ConfigMap"): k8s.core.v1.ConfigMap,
    ("apps/v1", "Deployment"): k8s.apps.v1.Deployment,
    ("apps/v1", "StatefulSet"): k8s.apps.v1.StatefulSet,
    ("networking.k8s.io/v1", "NetworkPolicy"): k8s.networking.v1.NetworkPolicy,
    ("networking.k8s.io/v1", "Ingress"): k8s.networking.v1.Ingress,
    ("policy/v1", "PodDisruptionBudget"): k8s.policy.v1.PodDisruptionBudget,
    ("autoscaling/v2", "HorizontalPodAutoscaler"): k8s.autoscaling.v2.HorizontalPodAutoscaler,
}
"""The Pulumi resource of each kind a platform renders; any other kind (cert-manager's, Gateway
API's, the Prometheus operator's) is a ``CustomResource`` of its own type."""


def platform_api_endpoint(namespace: str) -> str:
    """The in-cluster address of the API of the core of the platform of ``namespace`` (one per namespace)."""
    return in_cluster_url("core", namespace, 8080) + CORE_API_PATH


def validate_platform_args(args: PlatformArgs | Mapping[str, Any], path: str = "") -> PlatformArgs:
    """Validated arguments, or ``InvalidArgumentsError`` listing every offending field."""
    return validated(PlatformArgs, args, path, heading="invalid platform arguments")


def _quoted(value: str) -> str:
    """A connection string value as .NET's connection string syntax reads it back: quoted (its
    quotes doubled) when it holds a separator, a quote or outer blanks; else as it is."""
    if any(c in value for c in ";\"'=") or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


def connection_string(platform: PlatformArgs, credentials: Mapping[str, str]) -> str:
    """Auth's connection string (Npgsql's form), as the operator's controller composes it, but
    with a value that holds a separator quoted (the operator's would be cut at the ``;``)."""
    connection, name = database(platform_of(platform))
    username, password = (base64.b64decode(credentials[k]).decode() for k in (connection.username_key, connection.password_key))
    parts = {"Host": connection.host, "Port": str(connection.port), "Username": username, "Password": password, "Database": name}
    return ";".join(f"{key}={_quoted(value)}" for key, value in parts.items()) + ";Pooling=true"


def _stamped(obj: Obj, checksum: pulumi.Output[str] | None) -> Obj:
    """``obj`` with the credentials' hash on its pods, when it reads the credentials."""
    if checksum is None or obj["kind"] != "Deployment" or obj["metadata"]["name"] not in ROLLED_BY_CREDENTIALS:
        return obj
    return stamp_checksum(obj, checksum)


def child_arguments(obj: Obj) -> tuple[Any, dict[str, Any]]:
    """The resource a rendered object becomes, and its arguments (metadata owned by the program)."""
    api_version, kind = obj["apiVersion"], obj["kind"]
    fields = {key: value for key, value in obj.items() if key not in ("apiVersion", "kind", "metadata")}
    fields["metadata"] = owned_by_the_program(obj["metadata"])
    if (api_version, kind) in TYPED:
        return TYPED[(api_version, kind)], fields
    return k8s.apiextensions.CustomResource, {"api_version": api_version, "kind": kind, **fields}


class PlatformComponent(pulumi.ComponentResource):
    """A platform: core, auth, the scheduler, the gateway and the other workloads, their
    ConfigMaps, NetworkPolicies and edge, as the reference operator renders them."""

    api_endpoint: pulumi.Output[str]
    """Core's API in the cluster: what a connector of the same stack registers with."""
    version: pulumi.Output[str]
    """The platform version deployed."""

    def __init__(
        self,
        name: str,
        args: PlatformArgs | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        prepared: PlatformPrepared | None = None,
    ) -> None:
        """``prepared``: what the program decided for it (else the credentials are not read)."""
        platform = validate_platform_args(args)
        decided = prepared or PlatformPrepared(platform_of(platform).bundle.version, None)
        platform = holding_broker(holding(platform, decided.held_database), decided.held_broker)
        super().__init__(PLATFORM, name, None, opts)
        self.children: dict[str, pulumi.CustomResource] = {}
        rendered = render_platform(platform, decided.version)
        for obj in rendered:  # what an upstream operator turns into what the platform reads, first
            if obj["apiVersion"] in MANAGED_INFRASTRUCTURE:
                self._child(name, platform, obj)
        credentials = self._credentials(decided)
        checksum: pulumi.Output[str] | None = None
        auth_db: k8s.core.v1.Secret | None = None
        if credentials is not None:
            resolved = platform_of(platform, decided.version)
            secret = database(resolved)[0].secret or ""
            checksum = pulumi.Output.secret(credentials.apply(lambda d: config_checksum([ReferencedData("secret", secret, d)])))
            composed: pulumi.Output[dict[str, str]] = pulumi.Output.secret(
                credentials.apply(lambda d: {AUTH_DB_KEY: connection_string(platform, d)})
            )
            auth_db = k8s.core.v1.Secret(
                f"{name}-{AUTH_DB_SECRET}",
                metadata=owned_by_the_program(metadata(resolved, AUTH_DB_SECRET, "auth")),
                string_data=composed,
                opts=pulumi.ResourceOptions(parent=self),
            )
        else:
            pulumi.log.warn(f'platform "{name}": the auth-db Secret is left out (the database credentials could not be read)')
        for obj in rendered:
            if obj["apiVersion"] not in MANAGED_INFRASTRUCTURE:
                reads_auth_db = auth_db is not None and obj["metadata"]["name"] == "auth" and obj["kind"] == "Deployment"
                self._child(name, platform, _stamped(obj, checksum), [auth_db] if reads_auth_db else None)
        self.api_endpoint = pulumi.Output.from_input(platform_api_endpoint(platform.namespace))
        self.version = pulumi.Output.from_input(decided.version)
        self.register_outputs(self.output_values())

    def _child(self, name: str, platform: PlatformArgs, obj: Obj, depends: list[Any] | None = None) -> None:
        factory, fields = child_arguments(obj)
        retain = platform.deletion_policy == "Retain" and obj["apiVersion"] in MANAGED_INFRASTRUCTURE
        self.children[f"{obj['kind']}/{obj['metadata']['name']}"] = factory(
            f"{name}-{obj['metadata']['name']}",
            **fields,
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends, retain_on_delete=retain or None),
        )

    def _credentials(self, decided: PlatformPrepared) -> pulumi.Output[Mapping[str, str]] | None:
        """The credentials read; or, when an upstream operator has not generated all the platform
        reads yet, the credentials once it has: asked once the managed objects are created (their
        ids known), off the event loop, so the program's other registrations go on meanwhile; or
        None when nothing can be read."""
        awaited = decided.awaited_credentials
        if awaited is None:
            return None if decided.credentials is None else pulumi.Output.from_input(decided.credentials)

        def off_the_loop(_: object) -> Awaitable[Mapping[str, str]]:
            return asyncio.get_running_loop().run_in_executor(None, awaited)

        made = [child.id for child in self.children.values()]
        return pulumi.Output.all(*made).apply(off_the_loop)

    def output_values(self) -> dict[str, Any]:
        """The outputs, by their Python names."""
        return {"api_endpoint": self.api_endpoint, "version": self.version}
