"""``registration.provider_host``: what the dynamic-provider host workarounds decide (their SDK
parts: ``tests/test_sdk_workarounds.py``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from pulumi.output import Unknown

from components.registration import provider_host


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("x", False),
        (None, False),
        (Unknown(), True),
        ({"a": [1, {"b": Unknown()}]}, True),
        ([1, [2, "3"]], False),
    ],
)
def test_holds_unknown(value, expected):
    assert provider_host.holds_unknown(value) is expected


def test_nothing_is_adapted_outside_the_host():
    assert provider_host.running_host() is None
    provider_host.adapt()


def test_every_thread_pool_is_widened():
    pool = ThreadPoolExecutor(max_workers=2)
    try:
        assert provider_host.widen_thread_pool(provider_host.THREADS) >= 1
        assert pool._max_workers == provider_host.THREADS
    finally:
        pool.shutdown()
