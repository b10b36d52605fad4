"""Registration as the platform's Core answers it (#30): attributes in the Core's shape, the
Core's order of checks, its call back to the connector, and the answers that leave a record."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from components import InvalidArgumentsError, validate_args
from components.args.registration_spec import RegistrationArgs
from components.registration import inputs
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider

from .conftest import stack_connectors
from .http_answer import answer_json, serving
from .platform_double import ADMIN_TOKEN, PlatformDouble
from .registration_props import registration_props

REGISTERING_STACKS = ["with-registration", "otpki", "timestamp-formatting"]
V2_INFO = {"interfaces": [{"code": c, "version": "v2"} for c in ("info", "health", "metrics", "compliance")]}


def props_from_config(registration: dict[str, Any], platform_url: str, url: str) -> dict[str, Any]:
    """The registration's inputs as the component makes them from a ``registration`` block."""
    given = RegistrationArgs.model_validate(registration).model_dump(by_alias=True, exclude={"admin_credentials"})
    values = {i.python: given[i.config] for i in inputs.TABLE if i.from_config}
    return {**values, "platform_url": platform_url, "url": url, "route": "direct", "deadline_seconds": 5}


@pytest.mark.parametrize("stack", REGISTERING_STACKS)
def test_a_sample_stacks_registration_is_read_by_the_core(stack, double):
    """The operator's samples write attribute content as a plain value: sent as the Core reads it."""
    (entry,) = stack_connectors(stack)
    registration = entry["spec"]["registration"]
    assert any(isinstance(a["content"], str) for a in registration.get("customAttributes", []))
    outs = RegistrationProvider().create(props_from_config(registration, double.url, "http://c.ilm.svc:8080")).outs
    (record,) = double.records.values()
    assert outs["uuid"] == record.uuid
    assert record.custom_attributes == [
        {"name": a["name"], "content": [{"data": a["content"]}]} for a in registration["customAttributes"]
    ]
    assert outs["custom_attributes"] == registration["customAttributes"], "the state keeps what the user wrote"


def test_the_core_refuses_a_body_it_cannot_read_and_a_blank_name_as_it_does(double):
    body = {"name": "n", "version": "v2", "url": "http://c", "authType": "none"}
    unreadable = httpx.post(
        f"{double.url}/v2/connector/register", json={**body, "customAttributes": [{"name": "d", "content": "x"}]}
    )
    assert unreadable.status_code == 400
    blank = httpx.post(f"{double.url}/v2/connector/register", json={**body, "name": " ", "customAttributes": []})
    assert (blank.status_code, set(blank.json())) == (422, {"message"})
    double.violations.remove(next(v for v in double.violations if "customAttributes/0/content" in v))
    assert double.records == {}


def test_a_blank_name_is_the_cores_422_with_the_status_only(double):
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(registration_props(double.url, name=" "))
    assert str(caught.value) == "registration failed with status 422"


def test_an_attribute_with_no_definition_is_404_and_the_record_stays(double):
    double.attribute_definitions = {"description"}
    given = registration_props(double.url, custom_attributes=[{"name": "connectorType", "content": "complianceProvider"}])
    with pytest.raises(RegistrationError) as first:
        RegistrationProvider().create(given)
    message = str(first.value)
    assert message.startswith("registration failed with status 404: either platformUrl lacks its /api prefix")
    assert "keeps the record" in message and "create the attribute definition" in message
    assert "complianceProvider" not in message and "connectorType" not in message
    (record,) = double.records.values()
    assert record.status == "waitingForApproval"

    with pytest.raises(RegistrationError) as again:
        RegistrationProvider().create(given)
    assert str(again.value).startswith("registration failed with status 409")
    assert "answered 404 for an attribute that names no definition on the platform keeps its record" in str(again.value)

    adopted = RegistrationProvider().create({**given, "admin_credentials": {"bearerToken": ADMIN_TOKEN}}).outs
    assert adopted["uuid"] == record.uuid and len(double.records) == 1


@contextmanager
def connector(answers: dict[str, tuple[int, Any]]) -> Iterator[str]:
    """A connector on 127.0.0.1 answering ``GET <path>`` with (status, JSON) from ``answers``."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            status, payload = answers.get(self.path, (404, {"message": "not found"}))
            answer_json(self, status, json.dumps(payload).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def test_the_core_calls_a_v2_connector_back_and_registers_it_when_it_answers_as_required(double: PlatformDouble):
    double.callback = True
    with connector({"/v2/info": (200, V2_INFO)}) as url:
        outs = RegistrationProvider().create(registration_props(double.url, url=url)).outs
    assert double.records[outs["uuid"]].interfaces == ["info", "health", "metrics", "compliance"]


@pytest.mark.parametrize(
    ("answers", "version", "status"),
    [
        ({"/v2/info": (200, {"interfaces": [{"code": "info"}, {"code": "health"}, {"code": "compliance"}]})}, "v2", 422),
        ({"/v2/info": (200, {"interfaces": [{"code": c} for c in ("info", "health", "metrics")]})}, "v2", 422),
        ({"/v2/info": (200, V2_INFO)}, "v1", 404),
        ({"/v1": (200, [{"functionGroupCode": "complianceProvider"}])}, "v1", None),
    ],
)
def test_the_callback_decides(answers, version, status, double):
    double.callback = True
    with connector(answers) as url:
        given = registration_props(double.url, url=url, connector_version=version)
        if status is None:
            assert RegistrationProvider().create(given).outs["uuid"] in double.records
            return
        with pytest.raises(RegistrationError) as caught:
            RegistrationProvider().create(given)
    assert str(caught.value).startswith(f"registration failed with status {status}")
    assert double.records == {}


def test_nothing_listening_at_the_connector_is_503_retried_until_the_deadline(double):
    double.callback = True
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(registration_props(double.url, url=closed, deadline_seconds=2))
    assert str(caught.value).startswith("registration failed with status 503 after")
    assert len(double.requests) >= 2 and double.records == {}


def test_a_duplicate_is_found_before_the_callback(double):
    double.callback = True
    double.add("X.509", "http://elsewhere:8080")
    with pytest.raises(RegistrationError, match="status 409"):
        RegistrationProvider().create(registration_props(double.url, url="http://127.0.0.1:9"))
    assert len(double.requests) == 1


@pytest.mark.parametrize(
    ("content", "accepted"),
    [
        ("eu-west", True),
        ({"zone": "a"}, True),
        ([{"data": "eu-west", "reference": "EU West"}], True),
        (["eu-west"], False),
        ([{"reference": "EU West"}], False),
    ],
)
def test_content_of_either_form_at_preview_and_nothing_else(content, accepted):
    registration = {
        "platformUrl": "https://p.example/api",
        "name": "n",
        "authType": "basic",
        "authAttributes": [{"name": "password", "content": content}],
        "customAttributes": [{"name": "region", "content": content}],
    }
    args = {"name": "c", "image": {"repository": "r.example/c", "tag": "1"}, "registration": registration}
    if accepted:
        validate_args(args)
        return
    with pytest.raises(InvalidArgumentsError) as caught:
        validate_args(args)
    problems = caught.value.problems
    assert [p.split(":")[0] for p in problems] == [
        "registration.authAttributes[0].content",
        "registration.customAttributes[0].content",
    ]
    assert all("the platform's form" in p for p in problems) and "eu-west" not in str(caught.value)


def test_a_change_of_form_alone_is_no_change():
    olds = {"custom_attributes": [{"name": "d", "content": "x"}], "auth_attributes": [{"name": "p", "content": {"data": "s"}}]}
    news = {
        "custom_attributes": [{"name": "d", "content": [{"data": "x"}]}],
        "auth_attributes": [{"name": "p", "content": [{"data": "s"}]}],
    }
    assert inputs.changed(olds, news) == []
    assert inputs.changed(olds, {**news, "custom_attributes": [{"name": "d", "content": "y"}]}) == ["custom_attributes"]


@pytest.mark.parametrize(
    ("host", "accepted"),
    [
        ("connector.example.com", True),
        ("*.example.com", True),
        (".".join(["a" * 63] * 3) + "." + "b" * 61, True),
        (".".join(["a" * 63] * 3) + "." + "b" * 62, False),
        ("x" * 1024 * 1024, False),
        ("a" * 64 + ".example.com", False),
        ("10.0.0.1", False),
        ("Connector.example.com", False),
        ("a..example.com", False),
    ],
)
def test_an_ingress_host_is_checked_as_the_api_server_checks_it(host, accepted):
    args = {"name": "c", "image": {"repository": "r.example/c", "tag": "1"}, "ingress": {"host": host}}
    if accepted:
        validate_args(args)
        return
    with pytest.raises(InvalidArgumentsError, match=r"ingress\.host: must be a DNS-1123 subdomain") as caught:
        validate_args(args)
    assert len(str(caught.value)) < 600
