"""Registrations run side by side: more than the dynamic-provider host's 4 threads at once."""

from __future__ import annotations

from scripts.bench import connectors, most_at_once, registering
from tests.support.main_command_project import deploy, main_command_project, write_stack

from ..support.platform_double import platform_double


def test_twelve_slow_registrations_are_not_four_at_a_time(make_stack):
    with platform_double() as double:
        double.register_delay = 2.0
        stack = make_stack(registering(connectors(12), double.url), name="parallel")
        stack.up(parallel=12)
        assert len(double.requests) == 12 and len(double.records) == 12
        in_flight = most_at_once([t.timestamp() for t in double.register_times], 2.0)
        assert in_flight > 4, "the SDK's provider host serves 4 calls at once; registration.py raises that"


def test_the_main_command_runs_more_registrations_at_once_when_asked(engine, tmp_path):
    """``connectors up --engine-parallel 16``: more than the engine's default 8 operations at once."""
    project, state, render = main_command_project(tmp_path)
    with platform_double() as double:
        double.register_delay = 4.0
        write_stack(project, render, registering(connectors(12), double.url))
        up = deploy(project, state, "up", "--engine-parallel", "16")
        assert up.returncode == 0, up.stdout + up.stderr
        assert len(double.requests) == 12
        assert most_at_once([t.timestamp() for t in double.register_times], 4.0) > 8
