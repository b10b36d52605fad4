"""The registration's inputs as the provider receives them, for every test that calls the
provider or the platform's API directly: one factory, each test module's own values over it."""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    "name": "X.509",
    "url": "http://x509.ilm.svc.cluster.local:8080",
    "auth_type": "none",
    "auth_attributes": [],
    "custom_attributes": [],
    "connector_version": "v2",
    "retry_initial_seconds": 0.01,
    "retry_max_seconds": 0.02,
    "deadline_seconds": 0.5,
    "route": "direct",
}


def registration_props(platform_url: str, **given: Any) -> dict[str, Any]:
    """Every input a registration needs, ``given`` over the defaults."""
    return {"platform_url": platform_url, **DEFAULTS, **given}
