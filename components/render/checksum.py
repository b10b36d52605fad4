"""The config checksum over referenced Secrets and ConfigMaps, byte-for-byte the operator's.

Per object: SHA-256 over its ``data`` with keys sorted, each key's bytes then its raw value
bytes (a Secret's values decoded from base64), nothing between. Combined: SHA-256 over the
entries ``"<kind>/<name>=<per-object hex>;"`` sorted by entry key, duplicates once.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

EMPTY_CHECKSUM = hashlib.sha256(b"").hexdigest()

ReferenceKind = Literal["secret", "configmap"]
"""What a reference names: a Secret or a ConfigMap."""


@dataclass(frozen=True)
class ReferencedData:
    kind: ReferenceKind
    name: str
    data: Mapping[str, str]
    """As the API returns it: base64 for a Secret, plain text for a ConfigMap."""


def object_checksum(kind: ReferenceKind, data: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    for key in sorted(data):
        digest.update(key.encode())
        value = data[key]
        digest.update(base64.b64decode(value) if kind == "secret" else value.encode())
    return digest.hexdigest()


def config_checksum(objects: Iterable[ReferencedData]) -> str:
    entries = {f"{o.kind}/{o.name}": object_checksum(o.kind, o.data) for o in objects}
    combined = hashlib.sha256()
    for key in sorted(entries):
        combined.update(f"{key}={entries[key]};".encode())
    return combined.hexdigest()
