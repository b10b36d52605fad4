"""The Secrets and ConfigMaps a workload references: read, checked, and kept as data to hash.

Every missing object is reported in one message before any resource is registered. A
reference to a Secret or ConfigMap resource of the same program uses that resource's data
output instead of a read. What the checksum becomes is ``config_checksum``'s.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi

from components.args.problems import InvalidArgumentsError
from components.args.workloads import WorkloadArgs
from components.kube.object_reader import KIND_NAMES, NotReadable, Reference, ReferenceReader
from components.render.checksum import ReferencedData

__all__ = ["ResolvedReferences", "heading_of"]

NOT_FOUND = "referenced objects not found"
WITHOUT_KEYS = "referenced Secrets without the keys named"
NEED_A_CLUSTER = "referenced objects that only a cluster can give"
UNUSABLE = "referenced objects cannot be used"
"""The heading of problems of several of the kinds above."""


class MissingReferencesError(InvalidArgumentsError):
    """One message naming every reference that does not resolve."""

    def __init__(self, missing: Sequence[Reference]) -> None:
        problems = [f'{KIND_NAMES[r.kind]} "{r.name}" not found in namespace "{r.namespace}"' for r in missing]
        super().__init__(problems, heading=NOT_FOUND)


def heading_of(errors: Sequence[InvalidArgumentsError]) -> str:
    """One heading for the problems of ``errors``: theirs when they share it."""
    headings = {error.heading for error in errors}
    return headings.pop() if len(headings) == 1 else UNUSABLE


@dataclass
class ResolvedReferences:
    """What the checksum covers: data read now, and data outputs of the program's resources."""

    read: list[ReferencedData] = field(default_factory=list)
    read_any_secret: bool = False
    admin_credentials: dict[str, str] | None = None
    """The registration's administrator credentials read from ``adminCredentials.secretRef``."""
    from_resources: list[tuple[Reference, pulumi.Output[Mapping[str, str]]]] = field(default_factory=list)


def references_of(args: WorkloadArgs, own: Sequence[Reference] = ()) -> list[Reference]:
    """Every object the checksum covers: the kind's ``own`` first (a proxy's token Secret), then
    the secret and config map references."""
    refs = list(own)
    refs += [Reference("secret", r.name, args.namespace, r.source) for r in args.secret_refs]
    refs += [Reference("configmap", r.name, args.namespace, r.source) for r in args.config_map_refs]
    return refs


def _resource_data(ref: Reference) -> pulumi.Output[Mapping[str, str]]:
    """The data the API will hold: ``data``, with ``stringData`` (a Secret's, base64-encoded) over it."""
    source = ref.source
    string_data = getattr(source, "string_data", None) if ref.kind == "secret" else None

    def effective(values: list[Any]) -> Mapping[str, str]:
        data, strings = dict(values[0] or {}), values[1] or {}
        data.update({k: base64.b64encode(v.encode()).decode() for k, v in strings.items()})
        return data

    return pulumi.Output.all(source.data, string_data).apply(effective)


def resolve_references(args: WorkloadArgs, reader: ReferenceReader, own: Sequence[Reference] = ()) -> ResolvedReferences:
    """Read every named reference (``own`` first); raise ``MissingReferencesError`` naming all
    missing ones. Without a cluster (render mode) each named one is a warning, left out."""
    resolved, missing = ResolvedReferences(), []
    seen: set[tuple[str, str]] = set()
    for ref in references_of(args, own):
        if (ref.kind, ref.name) in seen:
            continue
        seen.add((ref.kind, ref.name))
        if ref.source is not None:
            resolved.from_resources.append((ref, _resource_data(ref)))
            continue
        try:
            data = reader.read(ref)
        except NotReadable:
            pulumi.log.warn(f"{ref.describe()} cannot be read without a cluster (render mode): the config checksum leaves it out")
            continue
        if data is None:
            missing.append(ref)
        else:
            resolved.read.append(ReferencedData(ref.kind, ref.name, data))
            resolved.read_any_secret |= ref.kind == "secret"
    if missing:
        raise MissingReferencesError(missing)
    return resolved


def read_data(resolved: ResolvedReferences, ref: Reference) -> Mapping[str, str] | None:
    """The data read for ``ref``, None when it was not read (render mode)."""
    return next((d.data for d in resolved.read if d.kind == ref.kind and d.name == ref.name), None)
