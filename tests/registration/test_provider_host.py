"""``registration.provider_host``: what the dynamic-provider host workarounds decide (and, below,
their SDK parts).

The dynamic provider's host, checked against the installed SDK: each test fails when an upgrade
changes what a workaround relies on (instead of the workaround silently doing nothing)."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

import pulumi
import pytest
from pulumi.output import Unknown

from components.registration import provider_host
from components.registration.errors import RegistrationError


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


def host_source() -> str:
    """The dynamic-provider host's source: it runs its server when imported, so it is read."""
    spec = importlib.util.find_spec(provider_host.HOST_MODULE)
    assert spec is not None and spec.origin is not None
    return pathlib.Path(spec.origin).read_text()


def test_the_dynamic_host_serves_on_a_pool_of_four_and_loads_providers_through_configure():
    source = host_source()
    assert "ThreadPoolExecutor(max_workers=4)" in source, "the host's pool changed: is widen_thread_pool still needed?"
    assert "provider.configure(" in source, "the host no longer calls configure: adapt() would never run"


def test_the_dynamic_host_reports_errors_with_its_module_traceback():
    tree = ast.parse(host_source())
    imports = [a.name for node in tree.body if isinstance(node, ast.Import) for a in node.names]
    assert "traceback" in imports
    (abort,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_abort_with_traceback"]
    calls = [ast.unparse(n.func) for n in ast.walk(abort) if isinstance(n, ast.Call)]
    assert "traceback.format_exc" in calls


def test_a_platform_error_reaches_the_engine_as_its_message_alone():
    import traceback

    host = ModuleType("host")
    host.traceback = traceback  # type: ignore[attr-defined]
    assert provider_host.report_platform_errors_without_tracebacks(host)
    try:
        raise RegistrationError("registration failed with status 400")
    except RegistrationError:
        assert host.traceback.format_exc() == "registration failed with status 400"
    try:
        raise KeyError("a bug")
    except KeyError:
        assert "Traceback" in host.traceback.format_exc()
    assert not provider_host.report_platform_errors_without_tracebacks(ModuleType("changed"))


def test_the_thread_pools_are_widened():
    pool = ThreadPoolExecutor(max_workers=4)
    try:
        assert provider_host.widen_thread_pool(32) >= 1
        assert pool._max_workers == 32
    finally:
        pool.shutdown()


def test_outputs_of_a_request_can_be_read_without_awaiting():
    from pulumi.output import Unknown, _OutputData  # noqa: F401 - both must exist

    from components.package import provider_server

    loop = asyncio.new_event_loop()
    try:
        future = loop.create_future()
        future.set_result(_OutputData(set(), "v", True, True))
        output = pulumi.Output._from_data(future)
        assert provider_server.resolved(output) == provider_server.Resolved("v", True, True)
        asyncio.set_event_loop(loop)
        unknown = provider_server.unknown_output()
        assert loop.run_until_complete(unknown.is_known()) is False
    finally:
        loop.close()
        asyncio.set_event_loop_policy(None)  # a fresh policy: the next test's loop as it would be


def test_importing_the_registration_wing_patches_nothing():
    """Outside the host, loading the registration package (and the provider's ``configure``) leaves every thread
    pool and the ``traceback`` of ``__main__`` as they were."""
    import subprocess

    probe = (
        "import sys, traceback\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "pool = ThreadPoolExecutor(max_workers=4)\n"
        "sys.modules['__main__'].traceback = traceback\n"
        "import components.registration.provider as p, components.registration.resource\n"
        "p.RegistrationProvider().configure(None)\n"
        "print(pool._max_workers, sys.modules['__main__'].traceback is traceback)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "4 True"
