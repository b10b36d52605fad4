"""The component under Pulumi mocks: children, names, parents and outputs."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from components import ConnectorComponent, InvalidArgumentsError
from components.app.program import connectors_program
from components.registration.resource import START_CALL
from tests.support.samples import SAMPLE_STACKS, stack_connectors

from .support.mocks import RecordingMocks, reader_for, run

DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def test_full_stack_creates_every_child_with_explicit_names():
    connectors = stack_connectors("full")
    mocks = run(lambda: connectors_program(reader_for(connectors)), {"connectors": connectors})
    types = sorted(r.type_ for r in mocks.resources)
    assert types == [
        "connectors:index:Connector",
        DEPLOYMENT,
        "kubernetes:core/v1:Service",
        "kubernetes:core/v1:ServiceAccount",
        "kubernetes:monitoring.coreos.com/v1:ServiceMonitor",
        "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        "kubernetes:policy/v1:PodDisruptionBudget",
    ]
    for r in mocks.resources:
        if r.type_.startswith("kubernetes:"):
            expected = "kms-identity" if r.type_.endswith("ServiceAccount") else "ejbca-ng-connector"
            assert r.inputs["metadata"]["name"] == expected


@pytest.mark.parametrize("stack", SAMPLE_STACKS)
def test_registration_only_where_the_stack_has_it(stack, ambient_kubeconfig):
    connectors = stack_connectors(stack)
    mocks = run(lambda: connectors_program(reader_for(connectors)), {"connectors": connectors})
    registrations = mocks.of_type("pulumi-python:dynamic/connectors:Registration")
    has_registration = "registration" in stack_connectors(stack)[0]["spec"]
    assert len(registrations) == (1 if has_registration else 0)
    if registrations:
        inputs = registrations[0].inputs
        spec = stack_connectors(stack)[0]
        assert inputs["url"] == f"http://{spec['name']}.{spec['namespace']}.svc.cluster.local:{spec['spec']['service']['port']}"
        assert inputs["platform_url"] == spec["spec"]["registration"]["platformUrl"]
        assert inputs["custom_attributes"] == spec["spec"]["registration"]["customAttributes"]
        assert inputs["route"] == "apiServerProxy"  # every sample names an in-cluster platform
    assert mocks.calls.count(START_CALL) == (1 if has_registration else 0)


def test_a_refused_start_call_does_not_stop_the_program(ambient_kubeconfig):
    """The registrations' provider refuses the call that starts it early (it implements no
    function): the expected answer, the program goes on and registers."""
    connectors = stack_connectors("with-registration")
    mocks = RecordingMocks(refuse_calls=True)
    run(lambda: connectors_program(reader_for(connectors)), {"connectors": connectors}, mocks)
    assert mocks.calls == [START_CALL]
    assert len(mocks.of_type("pulumi-python:dynamic/connectors:Registration")) == 1


def test_children_have_the_component_as_parent():
    seen: list[tuple[str, Any]] = []

    def record(args: pulumi.ResourceTransformationArgs) -> None:
        seen.append((args.type_, args.opts.parent))
        return None

    def program() -> Any:
        component = ConnectorComponent(
            "demo",
            {"name": "demo", "namespace": "ilm", "image": {"repository": "r", "tag": "1"}, "ingress": {"host": "d.example.com"}},
            pulumi.ResourceOptions(transformations=[record]),
        )
        seen.append(("component", component))
        return {"endpoint": component.endpoint, "image": component.current_image, "checksum": component.config_checksum}

    mocks = run(program)
    component = dict(seen)["component"]
    children = [(t, p) for t, p in seen if t.startswith("kubernetes:")]
    assert len(children) == 5
    assert all(parent is component for _, parent in children)
    assert mocks.result["endpoint"] == "http://demo.ilm.svc.cluster.local:8080"
    assert mocks.result["image"] == "r:1"
    assert component.children == {
        "service_account": "demo",
        "service": "demo",
        "deployment": "demo",
        "network_policy": "demo",
        "ingress": "demo",
    }
    assert component.deployment is not None and component.pod_disruption_budget is None and component.registration is None
    assert {t for t, _ in children} == {
        "kubernetes:core/v1:ServiceAccount",
        "kubernetes:core/v1:Service",
        "kubernetes:apps/v1:Deployment",
        "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        "kubernetes:networking.k8s.io/v1:Ingress",
    }


def test_the_children_are_attributes_and_their_output_holds_the_objects_names():
    """A custom ServiceAccount name is the object's name in ``children``, not the resource's."""
    made: dict[str, Any] = {}

    def program() -> None:
        spec = {"name": "demo", "namespace": "ilm", "image": {"repository": "r", "tag": "1"}}
        made["component"] = ConnectorComponent("demo", {**spec, "serviceAccount": {"name": "runs-demo"}})

    run(program)
    component = made["component"]
    assert component.children["service_account"] == "runs-demo" and component.children["deployment"] == "demo"
    kinds = ("deployment", "service", "service_account", "network_policy")
    assert all(isinstance(getattr(component, kind), pulumi.CustomResource) for kind in kinds)
    assert component.ingress is None and component.service_monitor is None


def test_invalid_arguments_register_nothing():
    def program() -> None:
        ConnectorComponent("demo", {"name": "demo", "image": {"repository": "r", "tag": "1"}, "replicas": -1})

    mocks = RecordingMocks()
    with pytest.raises(InvalidArgumentsError, match="replicas"):
        run(program, mocks=mocks)
    assert mocks.resources == []


def test_invalid_stack_config_registers_nothing():
    bad = [{"name": "demo", "namespace": "ilm", "spec": {"image": {"repository": "r"}}}]
    mocks = RecordingMocks()
    with pytest.raises(InvalidArgumentsError, match=r"connectors\[0\]\.spec\.image\.tag"):
        run(connectors_program, {"connectors": bad}, mocks)
    assert mocks.resources == []


def test_component_imported_by_another_program_with_outputs_as_inputs():
    from .support.consumer_program import program

    mocks = run(program)
    assert mocks.result == "http://team-connector.team.svc.cluster.local:8080 r.example/team:2.0.0"
    deployment = mocks.one(DEPLOYMENT).inputs
    template = deployment["spec"]["template"]
    assert template["metadata"]["labels"]["tier"] == "gold"
    assert template["spec"]["containers"][0]["image"] == "r.example/team:2.0.0"
    assert "podAntiAffinity" in template["spec"]["affinity"]


def test_each_kinds_resource_is_the_api_type_its_objects_are_rendered_with():
    """``render.objects.API_TYPES`` writes each object's apiVersion and kind; the resource
    ``children.RESOURCES`` makes of it is that very type."""
    import inspect

    from components.machinery.children import RESOURCES
    from components.render.objects import API_TYPES

    for kind, (api_version, name) in API_TYPES.items():
        if kind == "service_monitor":  # a custom resource, typed from the same table
            assert RESOURCES[kind].keywords == {"api_version": api_version, "kind": name}  # type: ignore[attr-defined]
            continue
        source = inspect.getsource(RESOURCES[kind])
        token = f"kubernetes:{api_version if '/' in api_version else 'core/' + api_version}:{name}"
        assert token in source, (kind, token)


def test_with_the_sdks_own_traces_a_child_carries_one_frame_of_the_library_as_a_hand_written_components(monkeypatch):
    """A user's program records each resource's whole stack trace (the SDK's default), and the
    state keeps it: a child carries the component's constructor and nothing else of the library
    (no helper that made it), as the children of a component written by hand carry theirs."""
    import pathlib

    import pulumi
    import pulumi_kubernetes as k8s
    from pulumi.runtime import mocks as sdk_mocks

    from components import ProxyComponent
    from components.machinery.workload_component import Prepared
    from tests.support.proxies import token_reader

    library = pathlib.Path(ConnectorComponent.__module__.replace(".", "/")).parent.name
    traces: dict[str, list[str]] = {}
    registering = sdk_mocks.MockMonitor.RegisterResource

    def recorded(self, request):
        frames = [f.pc.uri for f in request.stackTrace.frames]
        traces[f"{request.type}/{request.name}"] = [uri for uri in frames if f"/{library}/" in uri]
        return registering(self, request)

    monkeypatch.setattr(sdk_mocks.MockMonitor, "RegisterResource", recorded)

    class HandWritten(pulumi.ComponentResource):
        def __init__(self, name: str) -> None:
            super().__init__("test:index:HandWritten", name)
            k8s.core.v1.ServiceAccount(name, opts=pulumi.ResourceOptions(parent=self))
            self.register_outputs({})

    everything = {
        "image": {"repository": "r", "tag": "1"},
        "lifecycle": {"podDisruptionBudget": {"enabled": True, "minAvailable": 1}},
        "metrics": {"enabled": True, "serviceMonitor": {"enabled": True}},
        "ingress": {"host": "demo.example.com"},
        "registration": {"platformUrl": "http://127.0.0.1:9/api", "name": "demo", "authType": "none"},
    }

    def program() -> None:
        HandWritten("by-hand")
        ConnectorComponent("demo", {"name": "demo", **everything})
        proxy = {
            "name": "edge",
            "namespace": "ilm",
            "image": {"repository": "r", "tag": "1"},
            "configTokenSecretRef": {"name": "dc-east-config"},
        }
        ProxyComponent("edge", proxy, prepared=Prepared(reference_reader=token_reader()))

    run(program)
    assert traces.pop("kubernetes:core/v1:ServiceAccount/by-hand") == []
    children = {key: frames for key, frames in traces.items() if key.split(":")[0] == "kubernetes"}
    assert {key.split("/")[-1] for key in children} == {"demo", "edge"}
    assert len([key for key in children if key.endswith("/demo")]) == 7, sorted(children)
    for key, frames in children.items():
        own = "connector_component.py" if key.endswith("/demo") else "proxy_component.py"
        assert len(frames) == 1 and frames[0].endswith(own), (key, frames)
    # The registration's own class is the SDK's third constructor from the top: its frame stays.
    (registration,) = [frames for key, frames in traces.items() if key.endswith("/demo-registration")]
    assert [uri.rsplit("/", 2)[-2:] for uri in registration] == [
        ["registration", "resource.py"],
        ["components", "connector_component.py"],
    ]


def test_outputs_are_registered_as_values_and_read_as_outputs_made_once(monkeypatch):
    """The SDK tracks every Output until the program ends, and its wait for them grows with
    their number: a component registers its known outputs as plain values, and makes an Output
    of one only when the program reads it (docs/performance.md)."""
    registered: dict[str, Any] = {}
    original = pulumi.ComponentResource.register_outputs

    def recording(self: pulumi.ComponentResource, outputs: Any) -> None:
        registered.update(outputs)
        original(self, outputs)

    monkeypatch.setattr(pulumi.ComponentResource, "register_outputs", recording)

    def program() -> Any:
        component = ConnectorComponent("demo", {"name": "demo", "namespace": "ilm", "image": {"repository": "r", "tag": "1"}})
        endpoint = component.endpoint
        assert isinstance(endpoint, pulumi.Output) and component.endpoint is endpoint
        return {"endpoint": endpoint, "image": component.current_image}

    mocks = run(program)
    assert registered["endpoint"] == "http://demo.ilm.svc.cluster.local:8080"
    assert registered["current_image"] == "r:1" and isinstance(registered["config_checksum"], str)
    assert mocks.result == {"endpoint": "http://demo.ilm.svc.cluster.local:8080", "image": "r:1"}
