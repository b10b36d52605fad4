"""The component package from a Pulumi YAML program, through the real CLI: same objects, same
validation, registration exactly once, secrets kept, the schema generated from the models."""

from __future__ import annotations

import copy
import json
import os
import pathlib
import re
import subprocess
from typing import Any

import pytest
import yaml
from pulumi import automation as auto

from components.app.automation.sdk_inline_server import SECRET_KEY, SECRET_SIG
from tests.support.yaml_stacks import objects_in

from ..support.engine_stacks import changes
from ..support.fleet_project import kill_when
from ..support.platform_double import ADMIN_TOKEN
from ..support.yaml_stacks import example_program

CONNECTOR = "connectors:index:Connector"
REGISTRATION = "connectors:index:Registration"
IDENTITY = {"name", "namespace", "labels", "fromOperator"}


def interpolated(value: Any, config: dict[str, str]) -> Any:
    """A YAML program's property with ``${key}`` replaced by the config value (as the engine does)."""
    if isinstance(value, str):
        return re.sub(r"\$\{(\w+)\}", lambda m: config[m.group(1)], value)
    if isinstance(value, dict):
        return {k: interpolated(v, config) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolated(v, config) for v in value]
    return value


def as_stack_entries(program: dict[str, Any], config: dict[str, str]) -> list[dict[str, Any]]:
    """The program's connectors as the Python program's stack config, without their registration."""
    entries = []
    for resource in program["resources"].values():
        if resource["type"] != CONNECTOR:
            continue
        properties = interpolated({k: v for k, v in resource["properties"].items() if k != "registration"}, config)
        spec = {k: v for k, v in properties.items() if k not in IDENTITY}
        entries.append({**{k: v for k, v in properties.items() if k in IDENTITY}, "spec": spec})
    return entries


def test_example_program_renders_what_the_python_program_renders_and_registers_once(yaml_stack, make_stack, double, tmp_path):
    program = example_program()
    render_dir = tmp_path / "rendered-yaml"
    stack = yaml_stack(program, name="example", platformUrl=double.url, renderDirectory=str(render_dir))

    preview = stack.preview()
    assert preview.change_summary.get("create", 0) >= 2 + 2 * 4
    assert CONNECTOR in stack.text() and REGISTRATION in stack.text()
    assert double.requests == [], "a preview registers nothing"

    stack.output.clear()
    up = stack.up()
    assert len(double.requests) == 2
    assert {r["name"] for r in double.requests} == {"Payments", "Timestamps"}
    said = stack.text()
    for noise in ("error", "Traceback", "Task was destroyed", "never retrieved"):
        assert noise not in said, said  # the early start of the registrations' provider is silent
    uuids = {up.outputs["paymentsUuid"].value, up.outputs["timestampsUuid"].value}
    assert uuids == set(double.records)
    assert up.outputs["paymentsEndpoint"].value == "http://payments.ilm.svc.cluster.local:8080"

    assert changes(stack.up().summary.resource_changes) == {}
    stack.set("imageTag", "v1.5.0")
    changed = stack.up()
    assert changes(changed.summary.resource_changes) == {"update": 1}
    assert len(double.requests) == 2, "up, rerun and a spec change: each connector registered once"
    assert {changed.outputs["paymentsUuid"].value, changed.outputs["timestampsUuid"].value} == uuids

    python = make_stack(as_stack_entries(program, {"namespace": "ilm", "imageTag": "v1.5.0"}), name="python")
    python.up()
    from_yaml, from_python = objects_in(render_dir), objects_in(python.render_dir)
    assert len(from_yaml) == 9  # payments: 4 objects; timestamps: 5 (with its PodDisruptionBudget)
    assert from_yaml == from_python

    types = {(r["type"], r["urn"].split("::")[-1]) for r in stack.resources()}
    assert {(CONNECTOR, "payments"), (CONNECTOR, "timestamps")} <= types
    assert (REGISTRATION, "payments-registration") in types


def yaml_connector(program: dict[str, Any], name: str) -> dict[str, Any]:
    return program["resources"][name]["properties"]


def test_a_bad_field_fails_preview_naming_it_without_its_value(yaml_stack, double, tmp_path):
    program = example_program()
    yaml_connector(program, "payments")["replicas"] = -3
    yaml_connector(program, "payments")["serviceAccount"] = {"name": "Not_A_Label-CANARY"}
    yaml_connector(program, "payments")["strategy"] = {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}
    yaml_connector(program, "payments")["registration"]["customAttributes"] = [{"name": "region", "content": ["CANARY"]}]
    stack = yaml_stack(program, name="bad", platformUrl=double.url, renderDirectory=str(tmp_path / "r"))
    with pytest.raises(auto.CommandError):
        stack.preview()
    text = stack.text()
    assert "connectors:index:Connector resource 'payments' has a problem: invalid connector arguments" in text
    assert "- replicas: Input should be greater than or equal to 0 (got an integer)" in text
    assert "- serviceAccount.name: must be a DNS-1123 label" in text
    assert "- strategy: rollingUpdate can only be set when type is RollingUpdate" in text
    assert "- registration.customAttributes[0].content: must be a value or an object (the operator's form" in text
    assert "CANARY" not in text and "-3" not in text
    assert "Traceback" not in text and 'File "' not in text
    assert double.calls == []


def test_parent_and_provider_options_and_secrets_from_the_consumer(yaml_stack, double, tmp_path):
    program = example_program()
    program["config"]["adminToken"] = {"type": "string", "secret": True}
    program["config"]["apiKey"] = {"type": "string", "secret": True}
    yaml_connector(program, "payments")["env"] = [{"name": "API_KEY", "value": "${apiKey}"}]
    timestamps = program["resources"]["timestamps"]
    program["resources"]["payments"]["options"] = {"provider": "${kubernetes}"}  # provider, singular
    timestamps["options"] = {"parent": "${payments}"}  # and its providers inherited from the parent
    timestamps["properties"]["registration"]["adminCredentials"] = {"bearerToken": "${adminToken}"}
    timestamps["properties"]["registration"]["deregisterOnDestroy"] = True
    render_dir = tmp_path / "r"
    stack = yaml_stack(program, name="secrets", platformUrl=double.url, renderDirectory=str(render_dir))
    stack.set("adminToken", ADMIN_TOKEN, secret=True)
    stack.set("apiKey", "api-key-CANARY-3141", secret=True)
    stack.up()
    assert len(double.requests) == 2

    resources = {(r["type"], r["urn"].split("::")[-1]): r for r in stack.resources()}
    payments, timestamps = resources[(CONNECTOR, "payments")], resources[(CONNECTOR, "timestamps")]
    assert timestamps["parent"] == payments["urn"], "the consumer's parent option"
    assert resources[("kubernetes:apps/v1:Deployment", "timestamps")]["parent"] == timestamps["urn"]
    assert resources[(REGISTRATION, "timestamps-registration")]["parent"] == timestamps["urn"]
    rendered = objects_in(render_dir)
    assert ("Deployment", "ilm", "payments") in rendered, "the provider option reached the component's children"
    assert ("Deployment", "ilm", "timestamps") in rendered, "as did the parent's providers"
    secret = {SECRET_KEY: SECRET_SIG}
    state = stack.state_file()
    assert ADMIN_TOKEN not in state
    assert "CANARY-3141" not in state, "a secret in a rendered field keeps the rendered objects secret"
    deployment = resources[("kubernetes:apps/v1:Deployment", "payments")]
    assert deployment["inputs"]["spec"].items() >= secret.items()
    registration = resources[(REGISTRATION, "timestamps-registration")]
    assert registration["inputs"]["adminCredentials"].items() >= secret.items()

    stack.destroy()
    assert len(double.records) == 1, "timestamps de-registered with the consumer's secret admin token"


def test_a_proxy_from_yaml(yaml_stack, tmp_path):
    render_dir = tmp_path / "r"
    program = {
        "name": "proxy-consumer",
        "runtime": "yaml",
        "resources": {
            "render": {"type": "pulumi:providers:kubernetes", "properties": {"renderYamlToDirectory": str(render_dir)}},
            "edge": {
                "type": "connectors:index:Proxy",
                "properties": {
                    "name": "edge",
                    "namespace": "zone-a",
                    "readReferences": False,
                    "configTokenSecretRef": {"name": "edge-token"},
                },
                "options": {"providers": ["${render}"]},
            },
        },
        "outputs": {"endpoint": "${edge.endpoint}", "version": "${edge.observedVersion}"},
    }
    stack = yaml_stack(program, name="proxy")
    up = stack.up()
    assert up.outputs["version"].value == "1.0.0"
    assert up.outputs["endpoint"].value.startswith("http://edge.zone-a.svc.cluster.local:")
    kinds = {kind for kind, _, _ in objects_in(render_dir)}
    assert kinds == {"Deployment", "Service", "ServiceAccount", "NetworkPolicy"}
    assert 'Secret "edge-token" in namespace "zone-a" cannot be read without a cluster' in stack.text()


def model_fields(model: Any) -> dict[str, Any]:
    return {info.alias or name: info for name, info in model.model_fields.items()}


def test_package_get_schema_matches_the_models(yaml_engine):
    from typing import Literal, get_args, get_origin

    from pydantic import BaseModel

    from components.args.connector_spec import ConnectorArgs
    from components.args.platform_spec import PlatformArgs
    from components.args.proxy_spec import ProxyArgs
    from components.machinery.component_outputs import ConnectorOutputs, PlatformOutputs, ProxyOutputs
    from components.package.models import PackageOptions
    from components.package.schema import in_package

    env = {k: v for k, v in yaml_engine.items() if k != "TOOLS_BIN"}
    pulumi = pathlib.Path(yaml_engine["TOOLS_BIN"]) / "pulumi"
    answer = subprocess.run([str(pulumi), "package", "get-schema", "connectors"], env=env, capture_output=True, text=True)
    assert answer.returncode == 0, answer.stderr
    schema = json.loads(answer.stdout)
    types = schema["types"]

    def resolve(spec: dict[str, Any]) -> dict[str, Any]:
        return types[spec["$ref"].removeprefix("#/types/")] if "$ref" in spec and spec["$ref"].startswith("#/types/") else spec

    def literal_values(annotation: Any) -> tuple[Any, ...] | None:
        if get_origin(annotation) is Literal:
            return get_args(annotation)
        for arg in get_args(annotation):
            found = literal_values(arg)
            if found:
                return found
        return None

    def nested_model(annotation: Any) -> type[BaseModel] | None:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return annotation
        for arg in get_args(annotation):
            found = nested_model(arg)
            if found:
                return found
        return None

    checked: set[str] = set()

    def check(model: type[BaseModel], properties: dict[str, Any], required: list[str], where: str) -> None:
        fields = {alias: info for alias, info in model_fields(model).items() if in_package(info)}
        assert set(properties) == set(fields), where
        assert set(required) == {alias for alias, info in fields.items() if info.is_required()}, where
        for alias, info in fields.items():
            prop = properties[alias]
            assert prop["description"] == " ".join((info.description or "").split()) != "", f"{where}.{alias}"
            values = literal_values(info.annotation)
            if values is not None:
                assert [v["value"] for v in resolve(prop)["enum"]] == list(values), f"{where}.{alias}"
            nested = nested_model(info.annotation)
            if nested is not None:
                spec = prop.get("items") or prop.get("additionalProperties") or prop
                target = resolve(spec)
                if f"{where}.{alias}" not in checked:
                    checked.add(f"{where}.{alias}")
                    check(nested, target["properties"], target.get("required", []), f"{where}.{alias}")

    for token, args, outputs in (
        ("connectors:index:Connector", ConnectorArgs, ConnectorOutputs),
        ("connectors:index:Proxy", ProxyArgs, ProxyOutputs),
        ("connectors:index:Platform", PlatformArgs, PlatformOutputs),
    ):
        resource = schema["resources"][token]
        assert resource["isComponent"] is True
        options = model_fields(PackageOptions)
        inputs = {k: v for k, v in resource["inputProperties"].items() if k not in options}
        check(args, inputs, resource["requiredInputs"], token)
        check(outputs, resource["properties"], resource["required"], f"{token} outputs")
    assert schema["resources"]["connectors:index:Connector"]["inputProperties"]["replicas"]["type"] == "integer"
    assert (
        schema["resources"]["connectors:index:Connector"]["inputProperties"]["image"]["$ref"] == "#/types/connectors:index:Image"
    )
    admin_certificate = types["connectors:index:AdminCertificate"]["properties"]
    assert "source" in admin_certificate, "a field called source is the package's unless marked NotInPackage"
    assert copy.deepcopy(schema)["version"] == "0.1.0"


def test_the_package_registration_approves_before_it_edits_as_the_core_allows(yaml_stack, double, tmp_path):
    """The Core edits only approved records: through the package, an ``up`` that asks for
    approval and changes an attribute reads the record, approves it, then edits it."""
    program = example_program()
    program["config"]["adminToken"] = {"type": "string", "secret": True}
    registration = yaml_connector(program, "payments")["registration"]
    registration["adminCredentials"] = {"bearerToken": "${adminToken}"}
    stack = yaml_stack(program, name="core", platformUrl=double.url, renderDirectory=str(tmp_path / "r"))
    stack.set("adminToken", ADMIN_TOKEN, secret=True)
    stack.up()
    (uuid,) = [u for u, r in double.records.items() if r.name == "Payments"]
    registration.update(approve=True, customAttributes=[{"name": "region", "content": "eu"}])
    (stack.project_dir / "Pulumi.yaml").write_text(yaml.safe_dump(program, sort_keys=False))
    before = len(double.calls)
    stack.up()
    admin = [(m, p.replace(uuid, "{uuid}")) for m, p in double.calls[before:] if p.startswith("/v2/connectors/")]
    assert admin == [
        ("GET", "/v2/connectors/{uuid}"),
        ("PATCH", "/v2/connectors/{uuid}/approve"),
        ("PUT", "/v2/connectors/{uuid}"),
    ]
    assert double.records[uuid].status == "connected" and double.records[uuid].custom_attributes == [
        {"name": "region", "content": [{"data": "eu"}]}
    ]


def state_settles(stack: Any) -> Any:
    """A test of the stack's checkpoint: whole and unchanged for a second. The kill then lands
    while the engine waits on the held answer, not while it writes its file (the file backend
    writes in place, and a checkpoint cut short is a state no run can load: the CLI's own hazard)."""
    import time

    seen: dict[str, Any] = {}

    def settled() -> bool:
        try:
            text = stack.state_file()
            json.loads(text)
        except (ValueError, OSError):
            return False
        if seen.get("text") != text:
            seen.update(text=text, since=time.monotonic())
            return False
        return bool(time.monotonic() - seen["since"] >= 1.0)

    return settled


def test_a_plain_pulumi_up_killed_while_an_answer_is_lost_registers_each_connector_once(yaml_stack, double, tmp_path):
    """A plain ``pulumi up`` of the package, SIGKILLed (the CLI and its plugins at once) after the
    platform saved a record whose answer never arrived: the next ``up`` meets a 409 for it and,
    from the intent the provider journaled in the stack's backend, keeps it as its own earlier
    post (uuid unknown, no admin credentials), so the run succeeds and a no-op rerun sends nothing."""
    stack = yaml_stack(example_program(), name="killed", platformUrl=double.url, renderDirectory=str(tmp_path / "r"))
    double.lose_answers_after = 1
    workspace = stack.stack.workspace
    run = subprocess.Popen(
        [str(pathlib.Path(workspace.pulumi_command.command)), "up", "--yes", "--skip-preview", "--stack", "killed"],
        cwd=stack.project_dir,
        env={**os.environ, **workspace.env_vars},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    settled = state_settles(stack)
    kill_when(run, lambda: double.held >= 1 and settled(), timeout=300)
    assert len(double.records) == 2, "both records saved, one answer lost"
    double.lose_answers_after = None
    double.released.set()

    stack.stack.cancel()  # the lock the killed run left, as its user would
    stack.output.clear()
    stack.up()
    assert stack.text().count("posted when its run was interrupted") >= 1, stack.text()
    assert sorted(r.name for r in double.records.values()) == ["Payments", "Timestamps"], "none posted twice"
    registered = [r for r in stack.resources() if r["type"] == REGISTRATION]
    assert sorted(bool(r["outputs"]["uuid"]) for r in registered) == [False, True]
    sent = len(double.calls)
    assert changes(stack.up().summary.resource_changes) == {}
    assert len(double.calls) == sent, "a no-op rerun sends nothing"


def test_a_platform_and_its_connector_from_yaml_render_what_the_python_program_renders(yaml_stack, make_stack, tmp_path):
    """``connectors:index:Platform`` in a YAML program: its outputs, and a connector of the same
    program told its API address by the platform (an output passed on), as a stack file does it."""
    from ..support.operator_platform import minimal_spec

    render_dir = tmp_path / "r"
    spec = minimal_spec()
    connector = {"name": "payments", "namespace": "ilm", "image": {"repository": "r.example/payments", "tag": "1.0"}}
    program = {
        "name": "platform-consumer",
        "runtime": "yaml",
        "resources": {
            "render": {"type": "pulumi:providers:kubernetes", "properties": {"renderYamlToDirectory": str(render_dir)}},
            "ilm": {
                "type": "connectors:index:Platform",
                "properties": {"name": "ilm", "namespace": "ilm", "readReferences": False, **spec},
                "options": {"providers": ["${render}"]},
            },
            "payments": {
                "type": CONNECTOR,
                "properties": {**connector, "env": [{"name": "CORE_API", "value": "${ilm.apiEndpoint}"}]},
                "options": {"providers": ["${render}"]},
            },
        },
        "outputs": {"api": "${ilm.apiEndpoint}", "version": "${ilm.version}"},
    }
    stack = yaml_stack(program, name="platform")
    up = stack.up()
    assert up.outputs["api"].value == "http://core.ilm.svc.cluster.local:8080/api" and up.outputs["version"].value == "2.19.0"
    assert changes(stack.up().summary.resource_changes) == {}

    python = make_stack([], name="python-platform")
    python.stack.set_config(
        "connectors:platforms", auto.ConfigValue(json.dumps([{"name": "ilm", "namespace": "ilm", "spec": spec}]))
    )
    entry = {
        "name": "payments",
        "namespace": "ilm",
        "spec": {"image": connector["image"], "env": [{"name": "CORE_API", "value": up.outputs["api"].value}]},
    }
    python.stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps([entry])))
    python.up()
    from_yaml, from_python = objects_in(render_dir), objects_in(python.render_dir)
    assert ("Deployment", "ilm", "core") in from_yaml and ("Deployment", "ilm", "payments") in from_yaml
    assert from_yaml == from_python
