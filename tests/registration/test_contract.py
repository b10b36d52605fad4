"""``registration.contract``: the inputs table, the rules, the routes, the input checks and the request bodies."""

from __future__ import annotations

import re

import pytest

from components.registration import contract
from components.registration.contract import (
    CONTENT_RULE,
    IdentifierError,
    admin_over_http_problem,
    checked_uuid,
    content_problem,
    header_value_problem,
    is_loopback,
    is_uuid,
    platform_attributes,
    platform_content,
    problems,
    segment,
)


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


# ---- test_input_checks.py
ATTRIBUTES = (
    "must be a list of {name, content} attributes, each content a value or an object (the operator's form: sent as "
    "one content item's data), or a list of content items, each an object with data (the platform's form)"
)
BASE = {"platform_url": "https://p.example/api", "name": "n", "url": "http://c:8080", "auth_type": "none"}
OVER_HTTP = (
    "would travel in clear over http://; use an https:// platformUrl, or set registration.sendAdminCredentialsOverHttp: "
    "true where the network itself is trusted (a mesh with mTLS)"
)
IN_CLUSTER_ONLY = "must be an in-cluster Service address (<service>.<namespace>.svc...) for route apiServerProxy"


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
        ({"admin_credentials": {"bearerToken": "t"}, "platform_url": "http://p.example/api"}, [("adminCredentials", OVER_HTTP)]),
        ({"route": "apiServerProxy", "platform_url": "http://core.ilm.svc.cluster.local:8080/api"}, []),
        ({"route": "apiServerProxy"}, [("platformUrl", IN_CLUSTER_ONLY)]),
    ],
)
def test_problems(given, expected):
    assert problems({**BASE, **given}) == expected


def test_an_unknown_value_is_not_checked_yet():
    unknown = object()
    assert problems({**BASE, "name": unknown, "approve": unknown}, lambda v: v is unknown) == []
    later = {"platform_url": unknown, "admin_credentials": {"bearerToken": "t"}, "route": "apiServerProxy"}
    assert problems({**BASE, **later}, lambda v: v is unknown) == []


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
