"""``kube.proxy_token``: a proxy's config token Secret checked as read, its expiry read, never verified."""

from __future__ import annotations

import base64
import json
import time

import pytest

from components.args.problems import InvalidArgumentsError
from components.args.proxy_spec import ConfigTokenSecretRefArgs
from components.kube.proxy_token import check_config_token, token_expiry


def jwt(claims: dict) -> str:
    """A JWT as a Secret holds it (base64 of the compact form); its signature is never looked at."""
    part = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return base64.b64encode(f"e30.{part}.sig".encode()).decode()


@pytest.mark.parametrize(
    ("encoded", "expired"),
    [
        (jwt({"exp": 946684800}), "2000-01-01T00:00:00Z"),
        (jwt({"exp": time.time() + 3600}), None),
        (jwt({"sub": "proxy"}), None),
        (base64.b64encode(b"not a jwt").decode(), None),
        ("%%%", None),
    ],
    ids=[
        "expired",
        "expiring-in-an-hour",
        "no-expiry",
        "not-a-jwt",
        "not-base64",
    ],  # stable: the second token is made of the time
)
def test_token_expiry(encoded, expired):
    assert token_expiry(encoded) == expired


def test_a_token_secret_without_its_key_is_named_never_its_values():
    ref = ConfigTokenSecretRefArgs(name="proxy-token")
    with pytest.raises(InvalidArgumentsError) as raised:
        check_config_token(ref, "ilm", "edge", {"other": "c2VjcmV0"})
    assert 'has no key "configToken" (configTokenSecretRef.tokenKey)' in str(raised.value)
    assert "c2VjcmV0" not in str(raised.value)


def test_nothing_read_is_nothing_to_check():
    check_config_token(ConfigTokenSecretRefArgs(name="proxy-token"), "ilm", "edge", None)
