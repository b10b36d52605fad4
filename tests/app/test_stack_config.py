"""A stack across namespaces and its stack-wide settings, under Pulumi mocks: readable unique
resource names (existing ones unchanged), outputs nothing can overwrite, namespaces created
under the restricted Pod Security level when asked, the Kubernetes provider's own keys."""

from __future__ import annotations

from typing import Any

import pytest

from components import InvalidArgumentsError
from components.app.program import connectors_program
from components.kube.object_reader import NoCluster

from ..support.mocks import run


def connector(name: str, namespace: str, **spec: Any) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "spec": {"image": {"repository": "r.example/c", "tag": "1"}, **spec}}


def proxy(name: str, namespace: str) -> dict[str, Any]:
    return {"name": name, "namespace": namespace, "spec": {"configTokenSecretRef": {"name": "t"}}}


def program_with(config: dict[str, Any]) -> Any:
    return run(lambda: connectors_program(NoCluster()), {"renderDirectory": "r", **config})


def names_of(mocks: Any, type_: str) -> list[str]:
    return sorted(r.name for r in mocks.of_type(type_))


def test_the_same_name_in_two_namespaces_gets_readable_unique_resource_names():
    mocks = program_with(
        {
            "connectors": [connector("x509", "staging"), connector("x509", "prod")],
            "proxies": [proxy("edge", "a"), proxy("edge", "b")],
        }
    )
    assert names_of(mocks, "connectors:index:Connector") == ["prod/x509", "x509"]
    assert names_of(mocks, "kubernetes:apps/v1:Deployment") == ["b/edge", "edge", "prod/x509", "x509"]
    assert names_of(mocks, "connectors:index:Proxy") == ["b/edge", "edge"]
    deployments = {r.name: r.inputs["metadata"] for r in mocks.of_type("kubernetes:apps/v1:Deployment")}
    assert deployments["prod/x509"]["name"] == "x509" and deployments["prod/x509"]["namespace"] == "prod"


def test_unique_names_stay_as_they_always_were():
    mocks = program_with({"connectors": [connector("x509", "ilm"), connector("tsa", "other")]})
    assert names_of(mocks, "connectors:index:Connector") == ["tsa", "x509"]


def test_outputs_are_maps_by_namespace_and_name_and_nothing_overwrites_anything():
    from ..support.mocks import RecordingMocks

    captured: dict[str, Any] = {}
    mocks = RecordingMocks()
    import pulumi

    original = pulumi.export

    def export(name: str, value: Any) -> None:
        captured[name] = value
        original(name, value)

    pulumi.export = export
    try:
        program_with_mocks = {
            "connectors": [connector("x509", "staging"), connector("x509", "prod"), connector("proxies", "ilm")],
            "proxies": [proxy("edge", "a")],
        }
        run(lambda: connectors_program(NoCluster()), {"renderDirectory": "r", **program_with_mocks}, mocks)
    finally:
        pulumi.export = original
    assert set(captured["connectors"]) == {"staging/x509", "prod/x509", "ilm/proxies"}
    assert set(captured["proxies"]) == {"a/edge"}
    assert "x509" not in captured, "a name in two namespaces has no top-level output"
    assert set(captured) == {"connectors", "proxies"}


def test_namespaces_are_created_restricted_and_kept_only_when_asked():
    entries = [connector("x509", "staging"), connector("tsa", "staging"), connector("x509", "prod")]
    mocks = program_with({"connectors": entries, "createNamespaces": "true"})
    spaces = {r.inputs["metadata"]["name"]: r.inputs["metadata"]["labels"] for r in mocks.of_type("kubernetes:core/v1:Namespace")}
    assert set(spaces) == {"staging", "prod"}
    assert spaces["prod"] == {f"pod-security.kubernetes.io/{m}": "restricted" for m in ("enforce", "warn", "audit")}
    assert not program_with({"connectors": entries}).of_type("kubernetes:core/v1:Namespace")


def test_the_kubernetes_providers_own_keys_choose_the_cluster_too(monkeypatch):
    from components.app import stack_config

    config = {"connectors": [connector("x509", "ilm")], "renderDirectory": ""}
    mocks = run(lambda: connectors_program(NoCluster()), {**config})
    assert not mocks.of_type("pulumi:providers:kubernetes")
    import pulumi

    pulumi.runtime.set_all_config({"kubernetes:kubeconfig": "/k/config", "kubernetes:context": "prod"})
    settings = stack_config.stack_settings(pulumi.Config("connectors"))
    assert (settings.kubeconfig, settings.context) == ("/k/config", "prod")
    pulumi.runtime.set_all_config({"kubernetes:context": "prod", "connectors:context": "staging"})
    with pytest.raises(InvalidArgumentsError, match="connectors:context and kubernetes:context are both set"):
        stack_config.stack_settings(pulumi.Config("connectors"))
    pulumi.runtime.set_all_config({"connectors:createNamespaces": "yes"})
    with pytest.raises(InvalidArgumentsError, match="connectors:createNamespaces: must be true or false"):
        stack_config.stack_settings(pulumi.Config("connectors"))


def test_shards_split_the_stacks_between_runners(tmp_path):
    from components.app.command.fleet import matching_stacks

    (tmp_path / "stacks").mkdir()
    for i in range(11):
        (tmp_path / "stacks" / f"Pulumi.prod-{i:02d}.yaml").write_text("config: {}\n")
    every = matching_stacks(tmp_path, "prod-*")
    shares = [matching_stacks(tmp_path, "prod-*", (k, 4)) for k in range(1, 5)]
    assert sorted(s for share in shares for s in share) == every
    assert all(len(share) in (2, 3) for share in shares)


def test_render_only_leaves_registrations_and_their_secrets_out():
    """``renderOnly`` (the main command's ``render``) needs no cluster even where a
    registration's admin credentials come from a Secret, and registers nothing."""
    registration = {
        "platformUrl": "https://core.example/api",
        "name": "X.509",
        "authType": "none",
        "adminCredentials": {"secretRef": {"name": "platform-admin", "bearerTokenKey": "jwt"}},
    }
    config = {"connectors": [connector("x509", "ilm", registration=registration)]}
    with pytest.raises(InvalidArgumentsError, match="without a cluster"):
        program_with(config)
    mocks = program_with({**config, "renderOnly": "true"})
    assert names_of(mocks, "kubernetes:apps/v1:Deployment") == ["x509"]
    assert not [r for r in mocks.resources if "Registration" in r.type_]
