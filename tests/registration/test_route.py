"""``registration.route``: which route a registration takes, the service proxy path, where its requests go."""

from __future__ import annotations

from typing import Any

import pytest

from components import ConnectorComponent, InvalidArgumentsError
from components.bounded_http.destination import AdminCredentials
from components.kube.kube_access import ApiServerAccess
from components.machinery.workload_component import Prepared
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider
from components.registration.route import (
    RouteError,
    ServiceTarget,
    admin_credentials,
    choose_route,
    in_cluster_target,
    through_api_server,
)
from tests.support.apiserver_standin import kubeconfig_for

from ..support.apiserver_standin import FORBIDDEN_TOKEN, GOOD_TOKEN, api_server_standin
from ..support.mocks import StaticReader, run
from ..support.platform_double import platform_double
from ..support.registration_props import registration_props


# Which route, and the path through the API server's service proxy.
def resolving(result: bool):
    return lambda _host: result


def props(platform_url: str, standin, kubeconfig: str, **extra: Any) -> dict[str, Any]:
    own = {"name": "OT PKI", "url": "http://otpki-connector.ilm.svc.cluster.local:8080", "deadline_seconds": 10}
    attributes = [{"name": "description", "content": "x"}]
    return registration_props(
        platform_url, **own, custom_attributes=attributes, route="apiServerProxy", kubeconfig=kubeconfig, **extra
    )


PLATFORM = "http://core.ilm.svc.cluster.local:8080/api"


def connector_with(route: str) -> dict[str, Any]:
    return {
        "name": "otpki",
        "namespace": "ilm",
        "image": {"repository": "r", "tag": "1"},
        "registration": {
            "platformUrl": "http://core.ilm.svc.cluster.local:8080/api",
            "name": "n",
            "authType": "none",
            "route": route,
        },
    }


@pytest.mark.parametrize(
    ("setting", "url", "resolves", "route"),
    [
        ("auto", "http://core.ilm.svc.cluster.local:8080/api", False, "apiServerProxy"),
        ("auto", "http://core.ilm.svc.cluster.local:8080/api", True, "direct"),
        ("auto", "https://ilm-core.ilm-system.svc:8443/api", False, "apiServerProxy"),
        ("auto", "http://core.ilm.svc.corp.example:8080/api", False, "apiServerProxy"),
        ("auto", "https://ilm.example.com/api", False, "direct"),
        ("auto", "http://127.0.0.1:8080/api", False, "direct"),
        ("direct", "https://ilm.example.com/api", False, "direct"),
        ("direct", "http://core.ilm.svc.cluster.local:8080/api", True, "direct"),
        ("apiServerProxy", "http://core.ilm.svc.cluster.local:8080/api", True, "apiServerProxy"),
    ],
)
def test_routing_decision(setting, url, resolves, route):
    assert choose_route(setting, url, resolving(resolves)) == route


def test_routes_that_cannot_work_are_refused_naming_the_setting():
    with pytest.raises(RouteError, match=r"registration\.route is direct"):
        choose_route("direct", "http://core.ilm.svc.cluster.local:8080/api", resolving(False))
    with pytest.raises(RouteError, match=r"registration\.route is apiServerProxy"):
        choose_route("apiServerProxy", "https://ilm.example.com/api", resolving(False))


@pytest.mark.parametrize(
    ("url", "path"),
    [
        (
            "http://core.ilm.svc.cluster.local:8080/api/v2/connector/register",
            "/api/v1/namespaces/ilm/services/http:core:8080/proxy/api/v2/connector/register",
        ),
        (
            "https://ilm-core.ilm-system.svc.cluster.local:8443/api/v2/connector/register",
            "/api/v1/namespaces/ilm-system/services/https:ilm-core:8443/proxy/api/v2/connector/register",
        ),
        (
            "http://core.ilm.svc/api/v2/connector/register",
            "/api/v1/namespaces/ilm/services/http:core:80/proxy/api/v2/connector/register",
        ),
        (
            "https://core.ilm.svc/gw/api/v2/connector/register?x=1",
            "/api/v1/namespaces/ilm/services/https:core:443/proxy/gw/api/v2/connector/register?x=1",
        ),
    ],
)
def test_exact_proxy_path(url, path):
    target = in_cluster_target(url)
    assert isinstance(target, ServiceTarget)
    assert target.proxy_path() == path


@pytest.mark.parametrize("base", ["http://core.ilm.svc.cluster.local:8080/api", "http://core.ilm.svc.cluster.local:8080/api/"])
def test_base_path_with_and_without_trailing_slash(base, tmp_path):
    with platform_double() as double, api_server_standin(tmp_path) as standin:
        standin.upstreams[("ilm", "core", 8080)] = double.url.removesuffix("/api")
        RegistrationProvider().create(props(base, standin, kubeconfig_for(standin, token=GOOD_TOKEN)))
    assert standin.requests[0]["path"] == "/api/v1/namespaces/ilm/services/http:core:8080/proxy/api/v2/connector/register"
    assert double.paths == ["/api/v2/connector/register"]


@pytest.mark.parametrize("credential", ["token", "client-certificate"])
def test_same_request_through_the_proxy_with_kubeconfig_credentials(credential, tmp_path):
    with platform_double() as double, api_server_standin(tmp_path) as standin:
        standin.upstreams[("ilm", "core", 8080)] = double.url.removesuffix("/api")
        if credential == "token":
            user = {"token": GOOD_TOKEN}
        else:
            user = {
                "client-certificate": str(standin.certificates.client_cert),
                "client-key": str(standin.certificates.client_key),
            }
        config_path = tmp_path / "kubeconfig"
        config_path.write_text(kubeconfig_for(standin, **user))
        result = RegistrationProvider().create(props(PLATFORM, standin, str(config_path), kube_context="ctx"))
    assert len(double.requests) == 1
    assert double.requests[0] == {
        "name": "OT PKI",
        "version": "v2",
        "url": "http://otpki-connector.ilm.svc.cluster.local:8080",
        "authType": "none",
        "authAttributes": [],
        "customAttributes": [{"name": "description", "content": [{"data": "x"}]}],
    }
    assert result.outs["uuid"]
    seen = standin.requests[0]
    assert (seen["authorization"] == f"Bearer {GOOD_TOKEN}") if credential == "token" else (seen["client_cn"] == "standin-admin")


def test_api_server_refusal_says_which_side_refused(tmp_path):
    from components.registration.errors import RegistrationError

    with platform_double() as double, api_server_standin(tmp_path) as standin:
        standin.upstreams[("ilm", "core", 8080)] = double.url.removesuffix("/api")
        with pytest.raises(RegistrationError) as caught:
            RegistrationProvider().create(props(PLATFORM, standin, kubeconfig_for(standin, token=FORBIDDEN_TOKEN)))
    assert str(caught.value) == "registration failed with status 403 from the Kubernetes API server"
    assert len(standin.requests) == 1 and double.requests == []


def test_no_ready_endpoints_is_retried(tmp_path):
    from components.registration.errors import RegistrationError

    with api_server_standin(tmp_path) as standin:
        with pytest.raises(RegistrationError, match="status 503 after") as caught:
            RegistrationProvider().create(props(PLATFORM, standin, kubeconfig_for(standin, token=GOOD_TOKEN)))
    assert len(standin.requests) > 1
    assert "no endpoints" not in str(caught.value) and standin.url not in str(caught.value)


def test_in_cluster_url_without_credentials_fails_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: ConnectorComponent("otpki", connector_with("auto"), prepared=Prepared(reference_reader=StaticReader())))
    assert "registration.route auto" in str(caught.value) and "no cluster credentials" in str(caught.value)


def test_direct_forced_on_an_in_cluster_url_fails_at_once():
    with pytest.raises(InvalidArgumentsError, match=r"registration\.route is direct"):
        run(lambda: ConnectorComponent("otpki", connector_with("direct"), prepared=Prepared(reference_reader=StaticReader())))


def test_through_the_api_servers_service_proxy():
    access = ApiServerAccess("https://k:6443", "Bearer t", None, "/ca")
    destination = through_api_server("http://core.ilm.svc.cluster.local:8080/api", access)
    assert destination.base == "https://k:6443/api/v1/namespaces/ilm/services/http:core:8080/proxy/api"
    assert destination.headers == (("Authorization", "Bearer t"),) and destination.verify == "/ca"
    assert destination.through_proxy and destination.refusal_suffix == " from the Kubernetes API server"
    with pytest.raises(RegistrationError, match="not an in-cluster Service address"):
        through_api_server("https://p.example/api", access)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ({}, None),
        ({"bearerToken": ""}, None),
        ({"bearerToken": "t"}, AdminCredentials("t")),
        ({"clientCertificate": "c", "clientKey": "k"}, AdminCredentials(None, "c", "k")),
    ],
)
def test_admin_credentials_from_the_input(value, expected):
    assert admin_credentials(value) == expected
