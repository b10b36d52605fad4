"""The component package's provider side, without the engine: settling a consumer's inputs,
errors as the engine shows them, the schema's completeness."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pulumi
import pytest
from pulumi.output import Unknown

from components.args.base import Model
from components.args.problems import InvalidArgumentsError
from components.package import schema
from components.package.package_provider import as_input_errors, package_options, settle


def resolved(value: Any, secret: bool = False, known: bool = True) -> pulumi.Output[Any]:
    """An Output as the provider server makes it: its data already there."""
    from pulumi.output import _OutputData

    future: asyncio.Future[Any] = asyncio.get_event_loop().create_future()
    future.set_result(_OutputData(set(), value, known, secret))
    return pulumi.Output._from_data(future)


@pytest.fixture
def loop():
    """A loop of the test's own; the previous one is restored (the mocks' tests use it)."""
    previous = asyncio.get_event_loop_policy().get_event_loop()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    yield loop
    loop.run_until_complete(asyncio.gather(*asyncio.all_tasks(loop)))  # the Outputs the test made
    asyncio.set_event_loop(previous)
    loop.close()


def test_secret_anywhere_marks_its_top_level_field(loop):
    settled = settle(
        {
            "name": "demo",
            "env": [{"name": "A", "value": resolved("s3cret", secret=True)}],
            "registration": resolved({"platformUrl": "http://p", "name": "n", "authType": "none"}, secret=True),
            "image": resolved({"repository": "r", "tag": "1"}),
        }
    )
    assert settled.secret_fields == {"env", "registration"}
    assert settled.values["env"] == [{"name": "A", "value": "s3cret"}]
    assert settled.values["image"] == {"repository": "r", "tag": "1"}


def test_unknowns_become_unknown_outputs_and_whole_numbers_ints(loop):
    settled = settle(
        {"image": {"repository": "r", "tag": Unknown()}, "replicas": 2.0, "ratio": 2.5, "later": resolved(None, known=False)}
    )
    assert isinstance(settled.values["image"]["tag"], pulumi.Output)
    assert isinstance(settled.values["later"], pulumi.Output)
    assert settled.values["replicas"] == 2 and isinstance(settled.values["replicas"], int)
    assert settled.values["ratio"] == 2.5


def test_package_options_are_split_from_the_arguments():
    options, args = package_options({"name": "demo", "kubeconfig": "/k", "kubeContext": "c", "readReferences": False})
    assert (options.kubeconfig, options.kube_context, options.read_references) == ("/k", "c", False)
    assert args == {"name": "demo"}


def test_errors_carry_paths_in_the_message_only():
    error = InvalidArgumentsError(['connector "demo": replicas: must be at least 0 (got an integer)', 'connector "demo": x'])
    converted = as_input_errors(error, 'connector "demo"')
    assert converted.message == "invalid connector arguments:\n  - replicas: must be at least 0 (got an integer)\n  - x"
    assert converted.errors == [], "per-property details would make the engine print each value"


def test_every_field_needs_a_description():
    class Undocumented(Model):
        documented: int = 0
        """Has one."""
        bare: int = 0

    with pytest.raises(TypeError, match=r"Undocumented\.bare has no docstring"):
        schema.SchemaBuilder().object_type(Undocumented)


def test_schema_types_are_all_referenced_and_resolvable():
    generated = schema.package_schema()
    text = repr(generated)
    for token in generated["types"]:
        assert f"#/types/{token}" in text, f"{token} is never used"
    refs = set(re.findall(r"'#/types/([^']+)'", text))
    assert refs and refs <= set(generated["types"])


def test_the_readme_points_at_the_examples_the_tests_run():
    from ..conftest import ROOT

    guide = (ROOT / "docs" / "other-languages.md").read_text()
    for example in ("yaml/Pulumi.yaml", "typescript/src/index.ts", "go/program.go", "python/example_program.py"):
        assert f"(../components/package/examples/{example})" in guide
        assert (ROOT / "components" / "package" / "examples" / example).is_file()
    for text, target in re.findall(r"\[([^\]]+)\]\((\.\./components/package/examples/[^)]+)\)", guide):
        assert target.endswith(text), f"the link {text} points at {target}"


def test_the_package_version_is_the_projects():
    import tomllib

    from components.package import VERSION

    from ..conftest import ROOT

    assert VERSION == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_package_registers_with_its_own_resource_and_needs_no_dynamic_provider():
    """A connector built by the package registers through ``connectors:index:Registration``,
    served by the package's process: no Python dynamic provider, no call to start one."""
    from components.package.package_provider import ConnectorsProvider
    from components.package.schema import CONNECTOR_TYPE
    from components.registration.resource import START_CALL

    from ..support.mocks import run

    inputs: dict[str, Any] = {
        "name": "payments",
        "namespace": "ilm",
        "image": {"repository": "registry.example.com/connectors/payments", "tag": "v1.4.0"},
        "readReferences": False,
        "registration": {"platformUrl": "https://platform.example.com/api", "name": "Payments", "authType": "none"},
    }
    mocks = run(lambda: ConnectorsProvider().construct("payments", CONNECTOR_TYPE, inputs, None).urn)
    (registration,) = mocks.of_type("connectors:index:Registration")
    assert registration.inputs["platformUrl"] == "https://platform.example.com/api"
    assert registration.inputs["connectorVersion"] == "v2" and registration.inputs["connectorLabel"] == 'connector "payments"'
    assert not [r for r in mocks.resources if r.type_.startswith("pulumi-python:")]
    assert START_CALL not in mocks.calls


def test_the_schema_is_publishable():
    generated = schema.package_schema()
    language = generated["language"]
    assert not language["nodejs"]["packageName"].startswith("@pulumi/")
    assert "github.com/pulumi/" not in language["go"]["importBasePath"]
    assert language["csharp"]["rootNamespace"] and language["python"]["packageName"]
    for token, spec in {**generated["types"], **generated["resources"]}.items():
        assert spec["description"].strip() and spec["description"] != token.rsplit(":", 1)[-1], token
        for name, prop in {**spec.get("properties", {}), **spec.get("inputProperties", {})}.items():
            assert prop["description"].strip(), f"{token}.{name}"


def test_free_form_blocks_are_typed_as_the_kubernetes_package_types():
    connector = schema.package_schema()["resources"]["connectors:index:Connector"]["inputProperties"]
    k8s = f"/kubernetes/v{schema.KUBERNETES_PACKAGE}/schema.json#/types/kubernetes:core/v1:"
    assert connector["tolerations"]["items"]["$ref"] == k8s + "Toleration"
    assert connector["affinity"]["$ref"] == k8s + "Affinity"
    assert connector["resources"]["$ref"] == k8s + "ResourceRequirements"
    assert connector["initContainers"]["items"]["$ref"] == connector["sidecars"]["items"]["$ref"] == k8s + "Container"
    assert "pulumi.json#/Any" not in json.dumps({k: v for k, v in connector.items() if k != "labels"})


def test_the_package_registration_sends_attribute_contents_unchanged():
    """Keys inside an attribute's content are the user's: nothing renames them (the SDK would
    apply a property translator to nested keys)."""
    from components.package.package_registration import PackageRegistration

    from ..support.mocks import run

    content = {"ca_bundle": 1, "auth_type": {"registered_at": "x"}}

    def program() -> Any:
        return PackageRegistration(
            "r",
            platform_url="https://p/api",
            name="n",
            url="http://u",
            auth_type="none",
            custom_attributes=[{"name": "a", "content": content}],
        ).uuid

    mocks = run(program)
    (registration,) = mocks.of_type("connectors:index:Registration")
    assert registration.inputs["customAttributes"] == [{"name": "a", "content": content}]
    assert registration.inputs["platformUrl"] == "https://p/api" and "platform_url" not in registration.inputs


def test_the_package_builds_a_platform_and_returns_its_api_and_version():
    """``connectors:index:Platform`` in any language: the same component, its two outputs."""
    from components.package.package_provider import ConnectorsProvider
    from components.type_tokens import PLATFORM

    from ..support.mocks import run
    from ..support.operator_platform import minimal_spec

    inputs: dict[str, Any] = {"name": "ilm", "namespace": "ilm", "readReferences": False, **minimal_spec()}
    mocks = run(lambda: ConnectorsProvider().construct("ilm", PLATFORM, inputs, None).state)
    assert mocks.result == {"apiEndpoint": "http://core.ilm.svc.cluster.local:8080/api", "version": "2.19.0"}
    assert len(mocks.of_type("kubernetes:apps/v1:Deployment")) == 6
