"""Registrations run side by side: more than the dynamic-provider host's 4 threads at once."""

from __future__ import annotations

from scripts.bench import most_at_once

from ..platform_double import platform_double


def test_twelve_slow_registrations_are_not_four_at_a_time(make_stack):
    with platform_double() as double:
        double.register_delay = 2.0
        connectors = [
            {
                "name": f"c{i:02d}",
                "namespace": "ilm",
                "spec": {
                    "image": {"repository": "r.example/c", "tag": "1.0"},
                    "registration": {"platformUrl": double.url, "name": f"c{i:02d}", "authType": "none"},
                },
            }
            for i in range(12)
        ]
        stack = make_stack(connectors, name="parallel")
        stack.up(parallel=12)
        assert len(double.requests) == 12 and len(double.records) == 12
        in_flight = most_at_once([t.timestamp() for t in double.register_times], 2.0)
        assert in_flight > 4, "the SDK's provider host serves 4 calls at once; registration.py raises that"
