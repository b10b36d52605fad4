"""The Automation API process's workarounds inside the SDK (``components.app.automation.sdk_inline_server``),
checked against the installed SDK: each test fails when an upgrade changes what a workaround relies on."""

from __future__ import annotations

import inspect
import pathlib

import pulumi


def test_the_inline_language_server_is_the_one_the_automation_api_starts():
    from pulumi.automation import _server, _stack

    from components.app.automation import sdk_inline_server

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

    from components.app.automation import sdk_inline_server

    sdks, ours = _positions(_created(resource._get_stack_trace)), _positions(_created(sdk_inline_server.source_position_trace))
    assert len(sdks) > 1 and ours == sdks[:1], "the SDK's source position, the one frame"
    assert (
        ours[0][0].endswith("/tests/app/automation/test_sdk_inline_server.py")
        and ours[0][1] == _created.__code__.co_firstlineno + 2
    )

    monkeypatch.setattr(sdk_inline_server, "SDK_FOLDER", str(pathlib.Path(__file__).parent) + "/")
    assert _positions(_created(sdk_inline_server.source_position_trace)) == [], "none when the caller is the SDK's"
    assert sdk_inline_server.SDK_FOLDER != str(pathlib.Path(pulumi.__file__).parent) + "/"


def test_the_component_librarys_own_frames_are_passed_over(monkeypatch):
    """Every resource of a component (it and its children) is placed at the program's line that
    created the component; a resource the program creates itself, at its own line."""
    import pulumi_kubernetes as k8s
    from pulumi.runtime import mocks as sdk_mocks
    from pulumi.runtime import resource

    from components.app.automation import sdk_inline_server
    from components.connector_component import ConnectorComponent

    from ...support.mocks import run

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

    from components.app.automation import sdk_inline_server

    monkeypatch.setattr(resource, "_get_stack_trace", resource._get_stack_trace)
    sdk_inline_server.record_source_positions_only()
    assert resource._get_stack_trace is sdk_inline_server.source_position_trace


def test_the_secret_signature_is_the_sdks_and_written_nowhere_else():
    from pulumi.runtime import rpc

    from components.app.automation.sdk_inline_server import SECRET_KEY, SECRET_SIG

    from ...conftest import ROOT

    assert (SECRET_KEY, SECRET_SIG) == (rpc._special_sig_key, rpc._special_secret_sig)
    ours = [p for folder in ("components", "scripts", "tests") for p in (ROOT / folder).rglob("*.py") if "sdk" not in p.parts]
    copies = [str(p.relative_to(ROOT)) for p in ours if SECRET_KEY in p.read_text() or SECRET_SIG in p.read_text()]
    assert copies == [], copies
