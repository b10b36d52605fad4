"""A proxy's config token Secret, as read: its token key must be there (the signing key may be
absent), and an expired token (its JWT ``exp`` claim, read, never verified) is a warning."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime

import pulumi

from components.args.problems import InvalidArgumentsError
from components.args.proxy_spec import ConfigTokenSecretRefArgs
from components.kube.object_reader import Reference
from components.kube.referenced_objects import WITHOUT_KEYS


def token_reference(ref: ConfigTokenSecretRefArgs, namespace: str) -> Reference:
    return Reference("secret", ref.name, namespace)


def check_config_token(ref: ConfigTokenSecretRefArgs, namespace: str, proxy: str, data: Mapping[str, str] | None) -> None:
    """``data``: the token Secret as read, None when not read (render mode: nothing to check)."""
    if data is None:
        return
    if ref.token_key not in data:
        secret = token_reference(ref, namespace)
        raise InvalidArgumentsError(
            [f'{secret.describe()} has no key "{ref.token_key}" (configTokenSecretRef.tokenKey)'], heading=WITHOUT_KEYS
        )
    expired = token_expiry(data[ref.token_key])
    if expired:
        pulumi.log.warn(f"the config token of proxy {proxy!r} expired at {expired}: rotate it (edit its Secret; the pods roll)")


def token_expiry(encoded: str) -> str | None:
    """When a JWT (base64-encoded, as a Secret holds it) has expired, the time it did (only
    its numeric ``exp`` claim is read); None while valid, or when it is not a JWT or has no ``exp``."""
    try:
        payload = base64.b64decode(encoded).decode().split(".")[1]
        expires = float(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["exp"])
    except (ValueError, IndexError, KeyError, TypeError):
        return None
    if expires < time.time():
        return datetime.fromtimestamp(expires, UTC).isoformat().replace("+00:00", "Z")
    return None
