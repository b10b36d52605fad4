"""Every use of a private part of the Pulumi SDK, checked against the installed SDK: each test
fails when an upgrade changes what a workaround relies on (instead of the workaround silently
doing nothing), and shows the workaround doing its job."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import inspect
import pathlib
import sys
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType

import pulumi

from components.registration import provider_host
from components.registration.errors import RegistrationError


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


def test_the_inline_language_server_is_the_one_the_automation_api_starts():
    from pulumi.automation import _server, _stack

    from scripts import sdk_inline_server

    assert _stack.LanguageServer in (_server.LanguageServer, sdk_inline_server._ReportOnceLanguageServer)
    assert "LanguageServer(" in inspect.getsource(_stack), "inline runs no longer start _stack.LanguageServer"
    assert callable(getattr(_server.LanguageServer, "Run", None))
    assert "self.program" in inspect.getsource(_server.LanguageServer.Run)


def test_the_sdks_inline_server_still_leaves_the_root_directory_unset():
    """The inline server gives the program the workspace's folder because the SDK's does not
    (when it starts to, this fails and the setting can go); the setting it writes exists."""
    from pulumi.automation import _server
    from pulumi.runtime import settings

    assert "root_directory" not in inspect.getsource(_server.LanguageServer.Run)
    assert "root_directory" in inspect.signature(settings.reset_options).parameters
    before = settings.SETTINGS.root_directory
    try:
        settings.SETTINGS.root_directory = "/a/project"
        assert pulumi.get_root_directory() == "/a/project"
    finally:
        settings.SETTINGS.root_directory = before


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


def test_the_sdks_provider_server_serves_components_only_and_starts_as_the_package_does():
    from pulumi.provider import server
    from pulumi.runtime.proto import provider_pb2_grpc

    from components.package.provider_server import GRPC_OPTIONS, PackageServicer

    for rpc in ("Check", "Diff", "Create", "Read", "Update", "Delete"):
        inherited = getattr(server.ProviderServicer, rpc)
        assert inherited is getattr(provider_pb2_grpc.ResourceProviderServicer, rpc), f"the SDK serves {rpc} now"
        assert getattr(PackageServicer, rpc) is not inherited
    main = inspect.getsource(server.main)
    assert "ProviderServicer(provider, args, engine_address=engine_address)" in main
    assert "add_ResourceProviderServicer_to_server" in main and "_GRPC_CHANNEL_OPTIONS" in main
    assert GRPC_OPTIONS
    from pulumi.runtime.proto import engine_pb2

    fields = engine_pb2.LogRequest.DESCRIPTOR.fields_by_name  # the package's warnings, under a URN
    assert {"severity", "message", "urn"} <= set(fields) and engine_pb2.WARNING


class _Base:
    def __init__(self, trace):
        self.trace = trace()


class _Kind(_Base):
    def __init__(self, trace):
        super().__init__(trace)


class _Concrete(_Kind):
    def __init__(self, trace):
        super().__init__(trace)


def _created(trace):
    """A resource-like constructor chain (three ``__init__``), as the SDK's tracer expects it."""
    return _Concrete(trace).trace


def _positions(trace):
    return [(f.pc.uri, f.pc.line) for f in trace.frames]


def test_the_sdk_still_records_each_resources_stack_trace_through_the_function_replaced():
    from pulumi.runtime import resource

    for registering in (resource.register_resource, resource.read_resource):
        assert "_get_stack_trace()" in inspect.getsource(registering), "the SDK no longer traces through it"
    assert "traceback.extract_stack()" in inspect.getsource(resource._get_stack_trace)


def test_the_trace_is_the_sdks_first_frame_alone(monkeypatch):
    from pulumi.runtime import resource

    from scripts import sdk_inline_server

    sdks, ours = _positions(_created(resource._get_stack_trace)), _positions(_created(sdk_inline_server.source_position_trace))
    assert len(sdks) > 1 and ours == sdks[:1], "the SDK's source position, the one frame"
    assert ours[0][0].endswith("/tests/test_sdk_workarounds.py") and ours[0][1] == _created.__code__.co_firstlineno + 2

    monkeypatch.setattr(sdk_inline_server, "SDK_FOLDER", str(pathlib.Path(__file__).parent) + "/")
    assert _positions(_created(sdk_inline_server.source_position_trace)) == [], "none when the caller is the SDK's"
    assert sdk_inline_server.SDK_FOLDER != str(pathlib.Path(pulumi.__file__).parent) + "/"


def test_the_component_librarys_own_frames_are_passed_over(monkeypatch):
    """Every resource of a component (it and its children) is placed at the program's line that
    created the component; a resource the program creates itself, at its own line."""
    import pulumi_kubernetes as k8s
    from pulumi.runtime import mocks as sdk_mocks
    from pulumi.runtime import resource

    from components.connector_component import ConnectorComponent
    from scripts import sdk_inline_server
    from tests.mocks import run

    traces: dict[str, list[tuple[str, int]]] = {}
    registering = sdk_mocks.MockMonitor.RegisterResource

    def recorded(self, request):
        traces[f"{request.type}/{request.name}"] = [(f.pc.uri, f.pc.line) for f in request.stackTrace.frames]
        return registering(self, request)

    monkeypatch.setattr(sdk_mocks.MockMonitor, "RegisterResource", recorded)
    monkeypatch.setattr(resource, "_get_stack_trace", sdk_inline_server.source_position_trace)
    here = pathlib.Path(__file__).as_uri()

    def program() -> None:
        ConnectorComponent("demo", {"name": "demo", "image": {"repository": "r", "tag": "1"}})
        k8s.core.v1.ConfigMap("own")

    run(program)
    line = program.__code__.co_firstlineno + 1
    assert traces.pop("pulumi:pulumi:Stack/connectors-test", []) == [], "the SDK creates the stack (once a session)"
    assert traces.pop("kubernetes:core/v1:ConfigMap/own") == [(here, line + 1)]
    assert sorted(traces) == sorted(
        f"{kind}/demo"
        for kind in (
            "connectors:index:Connector",
            "kubernetes:core/v1:ServiceAccount",
            "kubernetes:core/v1:Service",
            "kubernetes:apps/v1:Deployment",
            "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        )
    )
    assert all(trace == [(here, line)] for trace in traces.values()), traces


def test_the_replacement_is_installed_for_inline_runs(monkeypatch):
    from pulumi.runtime import resource

    from scripts import sdk_inline_server

    monkeypatch.setattr(resource, "_get_stack_trace", resource._get_stack_trace)
    sdk_inline_server.record_source_positions_only()
    assert resource._get_stack_trace is sdk_inline_server.source_position_trace


def test_the_secret_signature_is_the_sdks_and_written_nowhere_else():
    from pulumi.runtime import rpc

    from components.command.sdk_inline_server import SECRET_KEY, SECRET_SIG

    from .conftest import ROOT

    assert (SECRET_KEY, SECRET_SIG) == (rpc._special_sig_key, rpc._special_secret_sig)
    ours = [p for folder in ("components", "scripts", "tests") for p in (ROOT / folder).rglob("*.py") if "sdk" not in p.parts]
    copies = [str(p.relative_to(ROOT)) for p in ours if SECRET_KEY in p.read_text() or SECRET_SIG in p.read_text()]
    assert copies == [], copies
