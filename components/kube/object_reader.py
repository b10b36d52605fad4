"""Where referenced Secrets and ConfigMaps are read from: the cluster, with the kubeconfig
rules the Kubernetes provider uses (values stay in this process and are only hashed), or
nowhere, in render mode (``NoCluster``: every read is ``NotReadable``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import pulumi

from components.args.platform_bundles import VERSION_ANNOTATION
from components.kube.kube_access import client_configuration
from components.render.checksum import ReferenceKind

__all__ = [
    "ClusterReader",
    "NoCluster",
    "PlatformVersionReader",
    "Reference",
    "ReferenceReadError",
    "ReferenceReader",
    "ServiceReader",
]

KIND_NAMES: dict[ReferenceKind, str] = {"secret": "Secret", "configmap": "ConfigMap"}


@dataclass(frozen=True)
class Reference:
    kind: ReferenceKind
    name: str
    namespace: str
    source: Any = None
    """A ``k8s.core.v1.Secret`` / ``ConfigMap`` resource of the program, or None for a named one."""

    def describe(self) -> str:
        return f'{KIND_NAMES[self.kind]} "{self.name}" in namespace "{self.namespace}"'


class NotReadable(Exception):
    """There is no cluster to read from (render mode)."""


class ReferenceReadError(pulumi.RunError):
    """A referenced object that could not be read (cluster unreachable, access refused)."""


@runtime_checkable
class PlatformVersionReader(Protocol):
    def platform_version(self, namespace: str) -> str | None:
        """The version the platform of ``namespace`` runs, or None when none runs there;
        ``NotReadable`` when there is nothing to read from."""


@runtime_checkable
class DefinitionReader(Protocol):
    def served(self, crd: str) -> bool | None:
        """Whether the CustomResourceDefinition ``crd`` (``<plural>.<group>``) is installed; None
        when this user may not read it; ``NotReadable`` when there is nothing to read from."""


@runtime_checkable
class CustomObjectReader(Protocol):
    def custom_object(self, api_version: str, plural: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        """An upstream operator's object as stored, or None when there is none; ``NotReadable``
        when there is nothing to read from."""


@runtime_checkable
class ServiceReader(Protocol):
    def service_exists(self, namespace: str, name: str) -> bool:
        """Whether the Service is there; ``NotReadable`` when there is nothing to read from."""


class ReferenceReader(Protocol):
    def read(self, ref: Reference) -> Mapping[str, str] | None:
        """The object's ``data`` as the API returns it, or None when it does not exist;
        ``NotReadable`` when there is nothing to read from."""


class NoCluster:
    """For render-to-directory mode: nothing can be read."""

    def read(self, ref: Reference) -> Mapping[str, str] | None:
        raise NotReadable(ref.describe())

    def platform_version(self, namespace: str) -> str | None:
        raise NotReadable(namespace)

    def served(self, crd: str) -> bool | None:
        raise NotReadable(crd)

    def custom_object(self, api_version: str, plural: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        raise NotReadable(name)

    def service_exists(self, namespace: str, name: str) -> bool:
        raise NotReadable(name)


class ClusterReader:
    """Reads with the kubernetes client: an explicit kubeconfig (path or content) and context,
    else the ambient ``KUBECONFIG`` / ``~/.kube/config`` / in-cluster service account."""

    def __init__(self, kubeconfig: str | None = None, context: str | None = None) -> None:
        self.kubeconfig = kubeconfig
        self.context = context
        self._api: Any = None

    def _core_api(self) -> Any:
        if self._api is None:
            from kubernetes import client

            self._api = client.CoreV1Api(client.ApiClient(client_configuration(self.kubeconfig, self.context)))
        return self._api

    def read(self, ref: Reference) -> Mapping[str, str] | None:
        from kubernetes.client.exceptions import ApiException

        try:
            api = self._core_api()
            if ref.kind == "secret":
                obj = api.read_namespaced_secret(ref.name, ref.namespace)
            else:
                obj = api.read_namespaced_config_map(ref.name, ref.namespace)
        except ApiException as error:
            if error.status == 404:
                return None
            raise ReferenceReadError(f"cannot read {ref.describe()}: status {error.status}") from None
        except Exception:
            raise ReferenceReadError(f"cannot read {ref.describe()}: the cluster could not be reached") from None
        return dict(obj.data or {})

    def platform_version(self, namespace: str) -> str | None:
        """The version the platform of ``namespace`` runs (its core's pods' annotation; core is a
        Deployment, or a StatefulSet when asked), or None when there is no core there."""
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        apps = client.AppsV1Api(self._core_api().api_client)
        for kind, read in (("Deployment", apps.read_namespaced_deployment), ("StatefulSet", apps.read_namespaced_stateful_set)):
            where = f'{kind} "core" in namespace "{namespace}"'
            try:
                workload = read("core", namespace)
            except ApiException as error:
                if error.status == 404:
                    continue
                raise ReferenceReadError(f"cannot read {where}: status {error.status}") from None
            except Exception:
                raise ReferenceReadError(f"cannot read {where}: the cluster could not be reached") from None
            template = workload.spec.template.metadata if workload.spec else None
            return ((template.annotations if template else None) or {}).get(VERSION_ANNOTATION)
        return None

    def served(self, crd: str) -> bool | None:
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        try:
            client.ApiextensionsV1Api(self._core_api().api_client).read_custom_resource_definition(crd)
        except ApiException as error:
            if error.status == 404:
                return False
            if error.status in (401, 403):
                return None
            raise ReferenceReadError(f"cannot read CustomResourceDefinition {crd}: status {error.status}") from None
        except Exception:
            raise ReferenceReadError(f"cannot read CustomResourceDefinition {crd}: the cluster could not be reached") from None
        return True

    def custom_object(self, api_version: str, plural: str, namespace: str, name: str) -> Mapping[str, Any] | None:
        from kubernetes import client
        from kubernetes.client.exceptions import ApiException

        group, version = api_version.split("/")
        where = f'{plural}.{group} "{name}" in namespace "{namespace}"'
        try:
            custom = client.CustomObjectsApi(self._core_api().api_client)
            stored = custom.get_namespaced_custom_object(group, version, namespace, plural, name)
        except ApiException as error:
            if error.status == 404:
                return None
            raise ReferenceReadError(f"cannot read {where}: status {error.status}") from None
        except Exception:
            raise ReferenceReadError(f"cannot read {where}: the cluster could not be reached") from None
        return stored if isinstance(stored, dict) else None

    def service_exists(self, namespace: str, name: str) -> bool:
        from kubernetes.client.exceptions import ApiException

        where = f'Service "{name}" in namespace "{namespace}"'
        try:
            self._core_api().read_namespaced_service(name, namespace)
        except ApiException as error:
            if error.status == 404:
                return False
            raise ReferenceReadError(f"cannot read {where}: status {error.status}") from None
        except Exception:
            raise ReferenceReadError(f"cannot read {where}: the cluster could not be reached") from None
        return True
