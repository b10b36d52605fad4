"""``registration.contract``: the inputs table, the rules, the routes, the input checks and the request bodies."""

from __future__ import annotations

import re
from typing import Any

import pytest

from components import ConnectorComponent, InvalidArgumentsError
from components.registration import contract
from components.registration.contract import (
    CONTENT_RULE,
    IdentifierError,
    RouteError,
    ServiceTarget,
    admin_over_http_problem,
    checked_uuid,
    choose_route,
    content_problem,
    header_value_problem,
    in_cluster_target,
    is_loopback,
    is_uuid,
    platform_attributes,
    platform_content,
    problems,
    segment,
)
from components.registration.provider import RegistrationProvider
from components.workload_component import Prepared
from tests.support.apiserver_standin import kubeconfig_for

from ..support.apiserver_standin import FORBIDDEN_TOKEN, GOOD_TOKEN, api_server_standin
from ..support.mocks import StaticReader, run
from ..support.platform_double import platform_double
from ..support.registration_props import registration_props


# ---- test_inputs.py
@pytest.mark.parametrize(
    ("python", "config", "package"),
    [
        ("platform_url", "platformUrl", "platformUrl"),
        ("connector_version", "version", "connectorVersion"),
        ("adopt_uuid", "uuid", "adoptUuid"),
        ("auth_attributes", "authAttributes", "authAttributes"),
        ("deadline_seconds", "deadlineSeconds", "deadlineSeconds"),
    ],
)
def test_each_input_has_a_name_for_each_audience(python, config, package):
    row = contract.BY_PYTHON[python]
    assert (row.python, row.config, row.package) == (python, config, package)


def test_names_are_unique_for_every_audience():
    for audience in ("python", "config", "package"):
        names = [getattr(i, audience) for i in contract.TABLE]
        assert len(names) == len(set(names)), audience
    assert not {o.package for o in contract.OUTPUTS} & {i.package for i in contract.TABLE}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (contract.ALWAYS_SECRET, ("auth_attributes", "admin_credentials")),
        (contract.PLATFORM, ("url", "auth_type", "auth_attributes", "custom_attributes")),
        (contract.IDENTITY, ("name", "connector_version")),
        (contract.OUTPUT_NAMES, ("uuid", "status", "registered_at")),
    ],
)
def test_the_tables_rows(table, expected):
    assert table == expected


@pytest.mark.parametrize(
    ("name", "props", "expected"),
    [
        ("connector_version", {}, "v2"),
        ("connector_version", {"connector_version": None}, "v2"),
        ("connector_version", {"connector_version": "v1"}, "v1"),
        ("custom_attributes", {}, []),
        ("retry_initial_seconds", {}, 5),
        ("deadline_seconds", {}, 600),
        ("approve", {}, False),
    ],
)
def test_value_takes_the_default_when_missing(name, props, expected):
    assert contract.value(props, name) == expected


@pytest.mark.parametrize(
    ("olds", "news", "changed"),
    [
        ({}, {"custom_attributes": []}, []),
        ({"connector_version": "v2"}, {}, []),
        ({"url": "a"}, {"url": "b"}, ["url"]),
        ({"connector_label": "x"}, {"connector_label": "y"}, []),
        ({"approve": False}, {"approve": True}, ["approve"]),
    ],
)
def test_changed_compares_with_the_defaults(olds, news, changed):
    assert contract.changed(olds, news) == changed


def test_with_defaults_refuses_an_unknown_input():
    assert contract.with_defaults({"name": "n"})["route"] == "direct"
    with pytest.raises(TypeError, match="unknown inputs: nmae"):
        contract.with_defaults({"nmae": "n"})


def test_config_names():
    assert contract.config_names(["adopt_uuid", "connector_version", "url"]) == ["uuid", "version", "url"]


def test_the_registrations_output_names_are_written_in_one_place():
    """``contract.UUID``, ``STATUS``, ``REGISTERED_AT`` (and their package names, made from them)
    are the only spellings: a literal copy in the code that reads or writes the outputs fails."""
    import ast

    from ..conftest import ROOT

    everywhere = {contract.REGISTERED_AT, "registeredAt"}
    readers = {"provider.py", "resource.py", "stack_status.py", "stack_check.py"}
    copies = []
    for path in [*(ROOT / "components").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]:
        if "sdk" in path.parts or path.name == "contract.py":
            continue
        names = everywhere | ({contract.UUID, contract.STATUS} if path.name in readers else set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                copies.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert copies == [], copies


# ---- test_rules.py
GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(GOOD, True), (GOOD.upper(), True), (f"{GOOD}\n", False), ("../x", False), (None, False), (7, False), ("", False)],
)
def test_is_uuid(value, expected):
    assert is_uuid(value) is expected


@pytest.mark.parametrize("bad", ["../../admin", f"{GOOD}/x", "x\r\ny"])
def test_a_bad_uuid_names_its_source_never_the_value(bad):
    with pytest.raises(IdentifierError) as caught:
        checked_uuid(bad, "the uuid in the stack's state")
    assert str(caught.value) == (
        "the uuid in the stack's state is not a UUID (8-4-4-4-12 hexadecimal digits); no request was made with it"
    )
    with pytest.raises(IdentifierError):
        segment(bad)


def test_a_segment_is_the_uuid():
    assert segment(GOOD) == GOOD


@pytest.mark.parametrize(
    ("value", "problem"),
    [("abc.DEF-123_~", False), ("a b", True), ("a\nb", True), ("é", True), ("", True), (None, True)],
)
def test_header_value_problem(value, problem):
    assert (header_value_problem(value) is not None) is problem


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("localhost", True),
        ("x.localhost", True),
        ("127.0.0.1", True),
        ("::1", True),
        ("127.1.2.3", True),
        ("10.0.0.1", False),
        ("core", False),
    ],
)
def test_is_loopback(host, expected):
    assert is_loopback(host) is expected


@pytest.mark.parametrize(
    ("url", "allowed", "refused"),
    [
        ("https://core.example/api", False, False),
        ("http://127.0.0.1:8080/api", False, False),
        ("http://core.ilm.svc:8080/api", False, True),
        ("http://core.ilm.svc:8080/api", True, False),
    ],
)
def test_admin_over_http(url, allowed, refused):
    problem = admin_over_http_problem(url, allowed)
    assert (problem is not None) is refused
    if refused:
        assert "sendAdminCredentialsOverHttp" in problem


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("X.509 certificate compliance provider", [{"data": "X.509 certificate compliance provider"}]),
        (42, [{"data": 42}]),
        (False, [{"data": False}]),
        ({"maxItems": 3}, [{"data": {"maxItems": 3}}]),
        ({"data": "x", "reference": "X"}, [{"data": "x", "reference": "X"}]),
        ([{"data": "a"}, {"data": {"b": 1}, "reference": "B"}], [{"data": "a"}, {"data": {"b": 1}, "reference": "B"}]),
        ([], []),
        (None, []),
    ],
)
def test_what_the_platform_reads(content, sent):
    assert content_problem(content) is None
    assert platform_content(content) == sent


@pytest.mark.parametrize("content", [["a"], [{"reference": "r"}], [{"data": 1}, 2], ({"x"},)])
def test_anything_else_is_refused(content):
    assert content_problem(content) == CONTENT_RULE


def test_attributes_keep_their_names_and_order():
    given = [{"name": "description", "content": "d"}, {"name": "connectorType", "content": [{"data": "c"}]}]
    assert platform_attributes(given) == [
        {"name": "description", "content": [{"data": "d"}]},
        {"name": "connectorType", "content": [{"data": "c"}]},
    ]
    assert platform_attributes(None) == []


# ---- test_routing.py
def resolving(result: bool):
    return lambda _host: result


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


def props(platform_url: str, standin, kubeconfig: str, **extra: Any) -> dict[str, Any]:
    own = {"name": "OT PKI", "url": "http://otpki-connector.ilm.svc.cluster.local:8080", "deadline_seconds": 10}
    attributes = [{"name": "description", "content": "x"}]
    return registration_props(
        platform_url, **own, custom_attributes=attributes, route="apiServerProxy", kubeconfig=kubeconfig, **extra
    )


PLATFORM = "http://core.ilm.svc.cluster.local:8080/api"


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


def test_in_cluster_url_without_credentials_fails_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: ConnectorComponent("otpki", connector_with("auto"), prepared=Prepared(reference_reader=StaticReader())))
    assert "registration.route auto" in str(caught.value) and "no cluster credentials" in str(caught.value)


def test_direct_forced_on_an_in_cluster_url_fails_at_once():
    with pytest.raises(InvalidArgumentsError, match=r"registration\.route is direct"):
        run(lambda: ConnectorComponent("otpki", connector_with("direct"), prepared=Prepared(reference_reader=StaticReader())))


# ---- test_input_checks.py
ATTRIBUTES = (
    "must be a list of {name, content} attributes, each content a value or an object (the operator's form: sent as "
    "one content item's data), or a list of content items, each an object with data (the platform's form)"
)
BASE = {"platform_url": "https://p.example/api", "name": "n", "url": "http://c:8080", "auth_type": "none"}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ({}, []),
        ({"platform_url": None}, [("platformUrl", "is required")]),
        ({"platform_url": "ftp://x"}, [("platformUrl", "must be an http:// or https:// URL")]),
        ({"auth_type": "password"}, [("authType", "must be one of none, basic, certificate, apiKey, jwt")]),
        ({"approve": "yes"}, [("approve", "must be true or false")]),
        ({"deadline_seconds": 0}, [("deadlineSeconds", "must be a number of seconds above 0 and at most 86400")]),
        ({"deadline_seconds": True}, [("deadlineSeconds", "must be a number of seconds above 0 and at most 86400")]),
        ({"adopt_uuid": "x"}, [("uuid", "must be a UUID (8-4-4-4-12 hexadecimal digits)")]),
        ({"custom_attributes": [{"content": 1}]}, [("customAttributes", ATTRIBUTES)]),
        ({"custom_attributes": [{"name": "d", "content": ["x"]}]}, [("customAttributes", ATTRIBUTES)]),
        ({"auth_attributes": [{"name": "p", "content": [{"reference": "r"}]}]}, [("authAttributes", ATTRIBUTES)]),
        ({"custom_attributes": [{"name": "d", "content": "x"}, {"name": "e", "content": [{"data": 1}]}]}, []),
        ({"admin_credentials": {"bearerToken": "t"}}, []),
        ({"admin_credentials": {"clientCertificate": "c", "clientKey": "k"}}, []),
        (
            {"admin_credentials": {"clientCertificate": "c"}},
            [("adminCredentials", "must be a map of bearerToken, or of clientCertificate and clientKey, as strings")],
        ),
        (
            {"admin_credentials": {"bearerToken": "a b"}},
            [
                (
                    "adminCredentials",
                    "bearerToken must be printable ASCII without spaces or line breaks (a value an HTTP header can carry)",
                )
            ],
        ),
        ({"name": 7}, [("name", "must be a string")]),
    ],
)
def test_problems(given, expected):
    assert problems({**BASE, **given}) == expected


def test_an_unknown_value_is_not_checked_yet():
    unknown = object()
    assert problems({**BASE, "name": unknown, "approve": unknown}, lambda v: v is unknown) == []


def test_the_register_body_has_the_platforms_fields_attributes_in_its_form():
    props = {"name": "n", "connector_version": "v1", "url": "http://c", "auth_type": "none"}
    given = {**props, "custom_attributes": [{"name": "a", "content": "x"}]}
    assert contract.register_body(given) == {
        "name": "n",
        "version": "v1",
        "url": "http://c",
        "authType": "none",
        "authAttributes": [],
        "customAttributes": [{"name": "a", "content": [{"data": "x"}]}],
    }
    assert contract.register_body({**props, "connector_version": None})["version"] == "v2"
    assert set(contract.edit_body(props)) == {"url", "authType", "authAttributes", "customAttributes"}


def test_the_schedule_and_the_time_as_the_outputs_hold_it():
    assert contract.schedule({"retry_initial_seconds": 1, "deadline_seconds": None}) == (1.0, 300.0, 600.0)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", contract.now_utc())
