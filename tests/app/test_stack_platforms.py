"""A connector registering with a platform of its own stack: by name, through that platform's
core's in-cluster address, after that platform; every way it can be wrong named first."""

from __future__ import annotations

from typing import Any

import pytest

from components import ConnectorComponent
from components.app.program import connectors_program
from components.args.problems import InvalidArgumentsError

from ..support.mocks import StaticReader, run
from ..support.operator_platform import minimal_spec

SECRETS = {("secret", ns, "core-secret"): {"username": "aWxt", "password": "cHc="} for ns in ("ilm", "other")}


def platform(namespace: str = "ilm", name: str = "ilm") -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "spec": minimal_spec()}


def connector(platform_name: str = "ilm", namespace: str = "ilm") -> dict[str, Any]:
    registration = {"platform": platform_name, "name": "Demo", "authType": "none"}
    return {
        "name": "demo",
        "namespace": namespace,
        "spec": {"image": {"repository": "r/x", "tag": "1"}, "registration": registration},
    }


def test_a_connector_naming_its_stacks_platform_registers_with_its_core_after_it(monkeypatch):
    monkeypatch.setattr("components.machinery.connector_registration.has_credentials", lambda *a: True)
    waits: list[Any] = []

    def recording(name: str, args: Any, opts: Any, prepared: Any) -> ConnectorComponent:
        waits.extend(type(d).__name__ for d in opts.depends_on or [])
        return ConnectorComponent(name, args, opts, prepared)

    monkeypatch.setattr("components.app.program.ConnectorComponent", recording)
    mocks = run(lambda: connectors_program(StaticReader(SECRETS)), {"platforms": [platform()], "connectors": [connector()]})
    registration = next(r for r in mocks.resources if r.type_.endswith(":Registration"))
    assert registration.inputs["platform_url"] == "http://core.ilm.svc.cluster.local:8080/api"
    assert registration.inputs["route"] == "apiServerProxy"
    assert waits == ["PlatformComponent"]


def test_the_platform_in_the_connectors_namespace_is_the_one_of_several_of_that_name(monkeypatch):
    monkeypatch.setattr("components.machinery.connector_registration.has_credentials", lambda *a: True)
    config = {"platforms": [platform("other"), platform("ilm")], "connectors": [connector(namespace="ilm")]}
    mocks = run(lambda: connectors_program(StaticReader(SECRETS)), config)
    registration = next(r for r in mocks.resources if r.type_.endswith(":Registration"))
    assert registration.inputs["platform_url"] == "http://core.ilm.svc.cluster.local:8080/api"


@pytest.mark.parametrize(
    ("platforms", "problem"),
    [
        ([], "connectors[0] (demo): registration.platform: no platform of this stack has that name"),
        (
            [platform("a"), platform("b")],
            "connectors[0] (demo): registration.platform: platforms of that name are in namespaces a, b, none in ilm",
        ),
    ],
)
def test_a_platform_that_is_not_there_or_not_one_is_named(platforms, problem):
    config = {"platforms": platforms, "connectors": [connector()]}
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(StaticReader(SECRETS)), config)
    assert caught.value.problems == [problem]


def test_platform_and_platform_url_are_one_or_the_other():
    entry = connector()
    entry["spec"]["registration"]["platformUrl"] = "https://core.example/api"
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(), {"connectors": [entry]})
    assert "set platformUrl or platform (a platform of the same stack file), one of them" in str(caught.value)


def test_a_program_passes_the_platforms_address_instead():
    spec = connector()["spec"]
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: ConnectorComponent("demo", {"name": "demo", "namespace": "ilm", **spec}))
    assert "registration.platform: names a platform of a stack file" in str(caught.value)
