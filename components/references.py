"""The Secrets and ConfigMaps a connector references: read, checked, and turned into data to hash.

A reference by name is read from the cluster here, in the program's process, with the same
kubeconfig rules as the Kubernetes provider: values stay in this process, are only hashed, and
every missing object is reported in one message before any resource is registered. A reference
to a Secret or ConfigMap resource of the same program uses that resource's data output instead.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import pulumi

from .args.errors import InvalidArgumentsError
from .args.kinds import WorkloadArgs
from .registration.cluster_access import client_configuration
from .render.checksum import ReferencedData, config_checksum

Kind = Literal["secret", "configmap"]
KIND_NAMES = {"secret": "Secret", "configmap": "ConfigMap"}


@dataclass(frozen=True)
class Reference:
    kind: Kind
    name: str
    namespace: str
    source: Any = None
    """A ``k8s.core.v1.Secret`` / ``ConfigMap`` resource of the program, or None for a named one."""

    def describe(self) -> str:
        return f'{KIND_NAMES[self.kind]} "{self.name}" in namespace "{self.namespace}"'


class ReferenceReader(Protocol):
    def read(self, ref: Reference) -> Mapping[str, str] | None:
        """The object's ``data`` as the API returns it, or None when it does not exist."""


class NoCluster:
    """For render-to-directory mode: nothing can be read; each named reference is a warning."""


class MissingReferencesError(InvalidArgumentsError):
    """One message naming every reference that does not resolve."""

    def __init__(self, missing: Sequence[Reference]) -> None:
        problems = [f'{KIND_NAMES[r.kind]} "{r.name}" not found in namespace "{r.namespace}"' for r in missing]
        super().__init__(problems, heading="referenced objects not found")


class ReferenceReadError(pulumi.RunError):
    """A referenced object that could not be read (cluster unreachable, access refused)."""


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


def references_of(args: WorkloadArgs) -> list[Reference]:
    """Every object the checksum covers: a proxy's token Secret first, then the references."""
    refs = []
    token = args.config_token()
    if token is not None:
        refs.append(Reference("secret", token.name, args.namespace))
    refs += [Reference("secret", r.name, args.namespace, r.source) for r in args.secret_refs]
    refs += [Reference("configmap", r.name, args.namespace, r.source) for r in args.config_map_refs]
    return refs


def check_config_token(args: WorkloadArgs, read: list[ReferencedData]) -> None:
    """A proxy's token Secret, as read: its ``tokenKey`` must be there (the signing key may be
    absent); an expired token (its JWT ``exp`` claim, read, never verified) is a warning."""
    token = args.config_token()
    if token is None:
        return
    data = next((d.data for d in read if d.kind == "secret" and d.name == token.name), None)
    if data is None:  # not read (render mode): nothing to check
        return
    if token.token_key not in data:
        ref = Reference("secret", token.name, args.namespace)
        raise InvalidArgumentsError(
            [f'{ref.describe()} has no key "{token.token_key}" (configTokenSecretRef.tokenKey)'],
            heading="referenced objects not found",
        )
    expired = token_expiry(data[token.token_key])
    if expired:
        pulumi.log.warn(
            f"the config token of proxy {args.name!r} expired at {expired}: rotate it (edit its Secret; the pods roll)"
        )


def token_expiry(encoded: str) -> str | None:
    """When a JWT (base64-encoded, as a Secret holds it) has expired, the time it did (only
    its numeric ``exp`` claim is read); None while valid, or when it is not a JWT or has no ``exp``."""
    import json
    import time
    from datetime import UTC, datetime

    try:
        payload = base64.b64decode(encoded).decode().split(".")[1]
        expires = float(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["exp"])
    except (ValueError, IndexError, KeyError, TypeError):
        return None
    if expires < time.time():
        return datetime.fromtimestamp(expires, UTC).isoformat().replace("+00:00", "Z")
    return None


@dataclass
class ResolvedReferences:
    """What the checksum covers: data read now, and data outputs of the program's resources."""

    read: list[ReferencedData] = field(default_factory=list)
    read_any_secret: bool = False
    admin_credentials: dict[str, str] | None = None
    """The registration's administrator credentials read from ``adminCredentials.secretRef``."""
    from_resources: list[tuple[Reference, pulumi.Output[Mapping[str, str]]]] = field(default_factory=list)


def _resource_data(ref: Reference) -> pulumi.Output[Mapping[str, str]]:
    """The data the API will hold: ``data``, with ``stringData`` (a Secret's, base64-encoded) over it."""
    source = ref.source
    string_data = getattr(source, "string_data", None) if ref.kind == "secret" else None

    def effective(values: list[Any]) -> Mapping[str, str]:
        data, strings = dict(values[0] or {}), values[1] or {}
        data.update({k: base64.b64encode(v.encode()).decode() for k, v in strings.items()})
        return data

    return pulumi.Output.all(source.data, string_data).apply(effective)


def resolve_references(args: WorkloadArgs, reader: ReferenceReader | NoCluster) -> ResolvedReferences:
    """Read every named reference; raise ``MissingReferencesError`` naming all missing ones."""
    resolved, missing = ResolvedReferences(), []
    seen: set[tuple[str, str]] = set()
    for ref in references_of(args):
        if (ref.kind, ref.name) in seen:
            continue
        seen.add((ref.kind, ref.name))
        if ref.source is not None:
            resolved.from_resources.append((ref, _resource_data(ref)))
        elif isinstance(reader, NoCluster):
            pulumi.log.warn(f"{ref.describe()} cannot be read without a cluster (render mode): the config checksum leaves it out")
        else:
            data = reader.read(ref)
            if data is None:
                missing.append(ref)
            else:
                resolved.read.append(ReferencedData(ref.kind, ref.name, data))
                resolved.read_any_secret |= ref.kind == "secret"
    if missing:
        raise MissingReferencesError(missing)
    check_config_token(args, resolved.read)
    resolved.admin_credentials = read_admin_credentials(args, reader)
    return resolved


ADMIN_KEYS = (
    ("bearer_token_key", "bearerToken"),
    ("client_certificate_key", "clientCertificate"),
    ("client_key_key", "clientKey"),
)


def read_admin_credentials(args: WorkloadArgs, reader: ReferenceReader | NoCluster) -> dict[str, str] | None:
    """The values of ``registration.adminCredentials.secretRef``, read now like any reference."""
    ref_args = args.admin_secret_ref()
    if ref_args is None:
        return None
    ref = Reference("secret", ref_args.name, args.namespace)
    if isinstance(reader, NoCluster):
        raise InvalidArgumentsError(
            [f"registration.adminCredentials.secretRef: {ref.describe()} cannot be read without a cluster (render mode)"],
            heading="referenced objects not found",
        )
    data = reader.read(ref)
    if data is None:
        raise MissingReferencesError([ref])
    values, problems = {}, []
    for attribute, field_name in ADMIN_KEYS:
        key = getattr(ref_args, attribute)
        if key is None:
            continue
        if key not in data:
            problems.append(f'{ref.describe()} has no key "{key}" (registration.adminCredentials.secretRef)')
            continue
        try:
            values[field_name] = base64.b64decode(data[key], validate=True).decode()
        except ValueError:
            problems.append(f'{ref.describe()}: key "{key}" is not base64-encoded text')
    if problems:
        raise InvalidArgumentsError(problems, heading="referenced objects not found")
    return values


def checksum_input(resolved: ResolvedReferences) -> str | pulumi.Output[str]:
    """The combined checksum: a plain string when every referenced object was read and none
    is a Secret (the pod template then carries no Output, which the SDK would have to await);
    an Output when an object comes from a resource of the program; secret whenever a Secret's
    values went into it."""
    if not resolved.from_resources and not resolved.read_any_secret:
        return config_checksum(resolved.read)
    outputs = [data for _, data in resolved.from_resources]

    def combine(values: list[Mapping[str, str]]) -> str:
        pending = [
            ReferencedData(ref.kind, ref.name, data) for (ref, _), data in zip(resolved.from_resources, values, strict=True)
        ]
        return config_checksum([*resolved.read, *pending])

    checksum = pulumi.Output.all(*outputs).apply(combine) if outputs else pulumi.Output.from_input(combine([]))
    return pulumi.Output.secret(checksum) if resolved.read_any_secret else checksum
