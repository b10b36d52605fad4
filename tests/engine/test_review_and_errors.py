"""What a reviewer and a user meet through the real engine: a readable diff, a named
registration, every operation of the main command, and each config error reported once."""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml
from pulumi import automation as auto

from components import ConnectorComponent
from components.registration.resource import LEGACY_TYPE_TOKEN, TYPE_TOKEN, Registration
from tests.support.engine_stacks import connector
from tests.support.main_command_project import deploy, main_command_project, write_stack

from ..support.engine_stacks import changes
from ..support.platform_double import platform_double

SECRET_VALUE = "db-password-7c1f-never-shown"


def program_with_a_secret(tag: str) -> Any:
    """A Secret of the program and a connector that references it (its checksum covers it)."""

    def program() -> None:
        render = k8s.Provider("render", render_yaml_to_directory=pulumi.Config("connectors").require("renderDirectory"))
        opts = pulumi.ResourceOptions(provider=render)
        creds = k8s.core.v1.Secret(
            "creds",
            metadata={"name": "creds", "namespace": "ilm"},
            string_data={"password": pulumi.Output.secret(SECRET_VALUE)},
            opts=opts,
        )
        ConnectorComponent(
            "vault",
            {
                "name": "vault",
                "namespace": "ilm",
                "image": {"repository": "r.example/vault", "tag": tag},
                "secretRefs": [{"name": "creds", "type": "env", "source": creds}],
            },
            opts,
        )

    return program


def test_preview_diff_of_a_connector_with_a_secret_shows_the_change_in_clear(make_stack):
    stack = make_stack([], name="diff", program=program_with_a_secret("1.0.0"))
    stack.up()
    stack.output.clear()
    stack.stack.workspace.program = program_with_a_secret("1.1.0")
    preview = stack.preview(diff=True)
    text = "\n".join(stack.output)
    assert "r.example/vault:1.0.0" in text and "r.example/vault:1.1.0" in text, text
    assert preview.change_summary.get("update") == 1 and not preview.change_summary.get("replace"), preview.change_summary
    for field in ("replicas", "selector", "template"):
        assert f"- {field}: [secret]" not in text
    stack.up()
    state = json.loads(stack.state_file())
    deployment = next(r for r in state["checkpoint"]["latest"]["resources"] if r["type"] == "kubernetes:apps/v1:Deployment")
    spec = deployment["inputs"]["spec"]
    assert spec["template"]["spec"]["containers"][0]["image"] == "r.example/vault:1.1.0"
    annotation = spec["template"]["metadata"]["annotations"]["otilm.com/config-checksum"]
    assert isinstance(annotation, dict) and "ciphertext" in annotation, "the checksum alone is secret"
    assert SECRET_VALUE not in stack.state_file()
    assert SECRET_VALUE not in text


class LegacyRegistration(Registration, module="", name="Resource"):
    """The registration as stacks created before it had its own type hold it."""


def test_a_registration_under_the_old_shared_type_is_kept_through_the_alias(make_stack, monkeypatch):
    import components.machinery.connector_registration

    with platform_double() as double:
        monkeypatch.setattr(components.machinery.connector_registration, "Registration", LegacyRegistration)
        stack = make_stack([connector(double.url)], name="alias")
        uuid = stack.up().outputs["x509"].value["registration"]["uuid"]
        types = [r["type"] for r in stack.stack.export_stack().deployment["resources"]]
        assert LEGACY_TYPE_TOKEN in types and TYPE_TOKEN not in types

        monkeypatch.setattr(components.machinery.connector_registration, "Registration", Registration)
        stack.output.clear()
        preview = stack.preview()
        assert not preview.change_summary.get("create") and not preview.change_summary.get("delete")
        upgraded = stack.up()
        assert changes(upgraded.summary.resource_changes) == {}
        assert upgraded.outputs["x509"].value["registration"]["uuid"] == uuid
        types = [r["type"] for r in stack.stack.export_stack().deployment["resources"]]
        assert TYPE_TOKEN in types and LEGACY_TYPE_TOKEN not in types
    assert len(double.requests) == 1


def occurrences(text: str, fragment: str) -> int:
    return text.count(fragment)


def test_a_config_error_is_reported_once_without_a_traceback(make_stack):
    bad = connector("http://127.0.0.1:9/api")
    bad["spec"]["replicas"] = -1
    stack = make_stack([bad], name="bad")
    for operation in (stack.preview, stack.up):
        stack.output.clear()
        with pytest.raises(auto.CommandError) as caught:
            operation()
        text = "\n".join(stack.output)  # the engine's whole output (the error repeats it as its stdout)
        assert occurrences(text, "connectors[0].spec.replicas: Input should be greater than or equal to 0") == 1, text
        assert "1 error" in text and "2 errors" not in text, text
        for said in (text, str(caught.value)):
            assert "unhandled" not in said and "Traceback" not in said


def test_the_main_command_does_every_operation_the_readme_names(engine, tmp_path):
    project, state, render = main_command_project(tmp_path)
    with platform_double() as double:
        config = connector(double.url)
        write_stack(project, render, [config])

        preview = deploy(project, state, "preview", "--diff")
        assert preview.returncode == 0, preview.stdout + preview.stderr
        assert "connectors:Registration" in preview.stdout and double.requests == []

        up = deploy(project, state, "up")
        assert up.returncode == 0, up.stdout + up.stderr
        assert len(double.requests) == 1

        urns = deploy(project, state, "urns").stdout.split()
        registration = next(u for u in urns if u.endswith("::x509-registration"))
        deployment = next(u for u in urns if "kubernetes:apps/v1:Deployment" in u)

        config["spec"]["image"]["tag"] = "2.0.0"
        config["spec"]["replicas"] = 3
        write_stack(project, render, [config])
        diff = deploy(project, state, "preview", "--diff")
        assert "r.example/x509:1.0.0" in diff.stdout and "r.example/x509:2.0.0" in diff.stdout, diff.stdout

        targeted = deploy(project, state, "up", "--target", deployment)
        assert targeted.returncode == 0, targeted.stdout + targeted.stderr
        rendered = [yaml.safe_load(p.read_text()) for p in render.rglob("*.yaml")]
        (spec,) = [o["spec"] for o in rendered if o["kind"] == "Deployment"]
        assert spec["replicas"] == 3

        double.records.clear()  # deleted in the administration UI, as the README says to do first
        replaced = deploy(project, state, "up", "--replace", registration)
        assert replaced.returncode == 0, replaced.stdout + replaced.stderr
        assert len(double.requests) == 2, "--replace registers anew, once"

        refreshed = deploy(project, state, "refresh", "--target", registration)
        assert refreshed.returncode == 0, refreshed.stdout + refreshed.stderr

        rerun = deploy(project, state, "up")
        assert rerun.returncode == 0 and len(double.requests) == 2

        destroyed = deploy(project, state, "destroy")
        assert destroyed.returncode == 0, destroyed.stdout + destroyed.stderr
        assert list(render.rglob("*.yaml")) == []
        assert len(double.requests) == 2

        config["spec"]["replicas"] = "three"
        write_stack(project, render, [config])
        failed = deploy(project, state, "preview")
        assert failed.returncode == 1
        said = failed.stdout + failed.stderr
        assert said.count("connectors[0].spec.replicas: Input should be a valid integer") == 1, said
        assert "unhandled" not in said and "Traceback" not in said
    assert json.loads(json.dumps(urns))
