"""What only the real engine can prove: exactly-once registration, uuid kept in state,
preview calling nothing, secrets encrypted in state, reruns changing nothing."""

from __future__ import annotations

import copy
import shutil
from typing import Any

import pytest
import yaml
from pulumi import automation as auto

from components.args.connector_spec import ConnectorEntry
from components.render.connector import render_connector
from tests.support.engine_stacks import connector
from tests.support.samples import SAMPLE_STACKS, stack_connectors

from ..conftest import ROOT
from ..support.engine_stacks import changes
from ..support.platform_double import Answer, platform_double

REGISTRATION = "pulumi-python:dynamic/connectors:Registration"
SECRET_CONTENT = "engine-test-api-key-5d2e"
ERROR_BODY = "PLATFORM-ERROR-BODY-ECHO"


def rendered_deployment(stack) -> dict[str, Any]:
    (text,) = [t for name, t in stack.rendered().items() if name.startswith("apps_v1-deployment")]
    return yaml.safe_load(text)


def test_registration_lifecycle(make_stack):
    with platform_double() as double:
        config = connector(double.url)
        stack = make_stack([config])

        preview = stack.preview()
        assert double.requests == []
        assert preview.change_summary.get("create", 0) >= 6
        assert any("x509-registration" in line for line in stack.output)

        up = stack.up()
        assert len(double.requests) == 1
        uuid = up.outputs["x509"].value["registration"]["uuid"]
        assert uuid and double.requests[0]["url"] == "http://x509.ilm.svc.cluster.local:8080"
        expected = render_connector(ConnectorEntry.model_validate(config).to_args())
        assert rendered_deployment(stack)["spec"] == expected.deployment["spec"]
        kinds = sorted(yaml.safe_load(t)["kind"] for t in stack.rendered().values())
        assert kinds == sorted(o["kind"] for o in expected.objects())

        rerun = stack.up()
        assert changes(rerun.summary.resource_changes or {}) == {}
        assert len(double.requests) == 1

        changed = copy.deepcopy(config)
        changed["spec"]["image"]["tag"] = "1.1.0"
        changed["spec"]["env"].append({"name": "EXTRA", "value": "1"})
        changed["spec"]["replicas"] = 2
        stack.set_connectors([changed])
        stack.up()
        deployment = rendered_deployment(stack)
        assert deployment["spec"]["replicas"] == 2
        assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == "r.example/x509:1.1.0"
        assert stack.registration_state()["outputs"]["uuid"] == uuid
        assert len(double.requests) == 1

        reformatted = stack.work_dir / "reformatted-source"
        shutil.copytree(ROOT / "components", reformatted / "components")
        with (reformatted / "components" / "registration.py").open("a") as module:
            module.write("\n# A comment added to the provider's module.\n")
        stack.stack.workspace.env_vars["PYTHONPATH"] = str(reformatted)
        source_change = stack.up()
        assert changes(source_change.summary.resource_changes or {}) == {}
        assert stack.registration_state()["outputs"]["uuid"] == uuid
        assert len(double.requests) == 1

        urn = stack.urn(REGISTRATION)
        stack.refresh(urn)
        after = stack.up()
        assert after.outputs["x509"].value["registration"]["uuid"] == uuid
        assert len(double.requests) == 1

        stack.destroy()
        assert len(double.requests) == 1
        assert stack.rendered() == {}


def test_retries_503_then_registers_once(make_stack):
    with platform_double() as double:
        double.script += [Answer(503), Answer(503)]
        stack = make_stack([connector(double.url)])
        up = stack.up()
    assert len(double.requests) == 3
    assert up.outputs["x509"].value["registration"]["uuid"]


def test_400_fails_with_the_status_only(make_stack):
    with platform_double() as double:
        double.script.append(Answer(400, {"message": ERROR_BODY}))
        stack = make_stack([connector(double.url)])
        with pytest.raises(auto.CommandError) as caught:
            stack.up()
    assert len(double.requests) == 1
    text = "\n".join(stack.output) + str(caught.value)
    assert "error: registration failed with status 400" in text
    assert ERROR_BODY not in text and "Traceback" not in text


def test_secret_attribute_never_in_plain_text(make_stack):
    with platform_double() as double:
        config = connector(double.url, authType="apiKey", authAttributes=[{"name": "apiKey", "content": SECRET_CONTENT}])
        stack = make_stack([config])
        stack.set_connectors([config], secret=True)
        stack.up()
        assert double.requests[0]["authAttributes"] == [{"name": "apiKey", "content": [{"data": SECRET_CONTENT}]}]
    state = stack.state_file()
    assert "x509-registration" in state and "ciphertext" in state
    assert SECRET_CONTENT not in state
    assert SECRET_CONTENT not in "\n".join(stack.output)
    assert all(SECRET_CONTENT not in text for text in stack.rendered().values())


@pytest.mark.parametrize("sample", SAMPLE_STACKS)
def test_every_sample_stack_previews_and_ups_in_render_mode(make_stack, sample):
    connectors = stack_connectors(sample)
    with platform_double() as double:
        for c in connectors:
            if "registration" in c["spec"]:
                c["spec"]["registration"]["platformUrl"] = double.url
        stack = make_stack(connectors, name=sample)
        stack.preview()
        assert double.requests == []
        stack.up()
        assert len(double.requests) == sum("registration" in c["spec"] for c in connectors)
        assert changes(stack.up().summary.resource_changes or {}) == {}
    expected = render_connector(ConnectorEntry.model_validate(connectors[0]).to_args())
    assert len(stack.rendered()) == len(expected.objects())


def warnings_of(events: list[auto.EngineEvent]) -> list[str]:
    return [e.diagnostic_event.message.strip() for e in events if e.diagnostic_event and e.diagnostic_event.severity == "warning"]


def test_render_mode_warns_once_per_named_reference(make_stack):
    stack = make_stack(stack_connectors("full"), name="full-warnings")
    events: list[auto.EngineEvent] = []
    stack.stack.preview(on_event=events.append)
    warned = [w for w in warnings_of(events) if "cannot be read without a cluster" in w]
    assert sorted(warned) == sorted(
        f'{kind} "{name}" in namespace "ilm-system" cannot be read without a cluster (render mode): the config checksum leaves it out'
        for kind, name in (
            ("Secret", "ejbca-db-credentials"),
            ("Secret", "ejbca-tls-certs"),
            ("ConfigMap", "ejbca-connector-config"),
        )
    )


def test_missing_references_stop_preview_and_up_before_anything_changes(make_stack, tmp_path):
    from components.app.program import connectors_program
    from components.kube.object_reader import ClusterReader
    from tests.support.apiserver_standin import kubeconfig_for

    from ..support.apiserver_standin import GOOD_TOKEN, api_server_standin

    with api_server_standin(tmp_path) as standin:
        standin.objects["/api/v1/namespaces/ilm-system/configmaps/ejbca-connector-config"] = {
            "kind": "ConfigMap",
            "data": {"ejbca.url": "u"},
        }
        reader = ClusterReader(kubeconfig_for(standin, token=GOOD_TOKEN))
        stack = make_stack(stack_connectors("full"), name="full-missing", program=lambda: connectors_program(reader))
        with pytest.raises(auto.CommandError):
            stack.preview()
        with pytest.raises(auto.CommandError):
            stack.up()
    text = "\n".join(stack.output)
    assert 'Secret "ejbca-db-credentials" not found in namespace "ilm-system"' in text
    assert 'Secret "ejbca-tls-certs" not found in namespace "ilm-system"' in text
    assert "ejbca-connector-config" not in text
    assert "Traceback" not in text
    assert stack.rendered() == {}
    resources = stack.stack.export_stack().deployment.get("resources") or []
    assert [r["type"] for r in resources if r["type"] != "pulumi:pulumi:Stack"] == []


def test_preview_shows_the_route(make_stack, tmp_path):
    from tests.support.samples import kubeconfig_text

    path = tmp_path / "kubeconfig"
    path.write_text(kubeconfig_text("https://127.0.0.1:6443"))
    stack = make_stack(stack_connectors("otpki"), name="otpki-route")
    stack.stack.set_config("connectors:kubeconfig", auto.ConfigValue(str(path)))
    stack.preview()
    assert any("registration will use route apiServerProxy" in line for line in stack.output)
