"""The registration provider over the connector's whole life, against the stateful platform
stand-in on 127.0.0.1 (its OpenAPI checks on every request and answer).

Registration as the platform's Core answers it (#30): attributes in the Core's shape, the
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
from components.registration import contract
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider
from tests.support.samples import stack_connectors

from ..support.apiserver_standin import make_certificates
from ..support.http_answer import answer_json, serving
from ..support.platform_double import ADMIN_TOKEN, PlatformDouble, platform_double
from ..support.registration_props import registration_props

URL = "http://x509.ilm.svc.cluster.local:8080"
ADMIN = {"bearerToken": ADMIN_TOKEN}
REGISTER = ("POST", "/v2/connector/register")


def props(double: PlatformDouble, **extra: Any) -> dict[str, Any]:
    return registration_props(double.url, **{"url": URL, **extra})


def called(double: PlatformDouble) -> list[tuple[str, str]]:
    return [(method, path.split("/v2/connectors/")[0] if "{" in path else path) for method, path in double.calls]


def test_adopting_a_known_uuid_posts_nothing(double):
    record = double.add("X.509", URL)
    result = RegistrationProvider().create(props(double, adopt_uuid=record.uuid))
    assert result.id == record.uuid and result.outs["uuid"] == record.uuid
    assert double.calls == [], "without admin credentials nothing is called"

    result = RegistrationProvider().create(props(double, adopt_uuid=record.uuid, admin_credentials=ADMIN))
    assert result.outs["status"] == "waitingForApproval"
    assert double.calls == [("GET", f"/v2/connectors/{record.uuid}")]
    assert len(double.records) == 1


def test_adopting_a_uuid_the_platform_does_not_have_names_it(double):
    missing = "0b6a3f0e-1111-4222-8333-944445555666"
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double, adopt_uuid=missing, admin_credentials=ADMIN))
    assert str(caught.value) == "the uuid set in registration.uuid is not a connector on the platform (status 404)"
    assert double.count(*REGISTER) == 0


def test_409_without_admin_credentials_names_both_ways_out(double):
    double.add("X.509", "http://elsewhere:8080")
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double))
    message = str(caught.value)
    assert message.startswith("registration failed with status 409")
    assert "registration.uuid" in message and "registration.adminCredentials" in message
    assert len(double.records) == 1


def test_409_with_admin_credentials_adopts_the_same_connector(double):
    existing = double.add("X.509", URL)
    result = RegistrationProvider().create(props(double, admin_credentials=ADMIN))
    assert result.id == existing.uuid
    assert double.count(*REGISTER) == 1 and double.count("POST", "/v2/connectors/list") == 1
    assert len(double.records) == 1


@pytest.mark.parametrize(
    ("name", "url", "fragment"),
    [
        ("X.509", "http://elsewhere:8080", "a connector of the same name is registered with another url or version"),
        ("Other", URL, "is registered with this url and version"),
    ],
)
def test_409_with_admin_credentials_names_a_real_conflict(double, name, url, fragment):
    other = double.add(name, url)
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double, admin_credentials=ADMIN))
    assert fragment in str(caught.value)
    assert other.uuid not in str(caught.value), "a value from the platform's answer is never repeated"
    assert len(double.records) == 1


def test_a_change_the_platform_must_know_is_one_put_on_the_same_uuid(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double, admin_credentials=ADMIN)).outs
    news = props(
        double,
        admin_credentials=ADMIN,
        url="http://x509.ilm.svc.cluster.local:9090",
        custom_attributes=[{"name": "d", "content": "x"}],
    )
    assert provider.diff(olds["uuid"], olds, news).changes
    assert provider.diff(olds["uuid"], olds, news).replaces == []
    double.records[olds["uuid"]].status = "connected"  # the platform edits approved records only
    outs = provider.update(olds["uuid"], olds, news).outs
    assert outs["uuid"] == olds["uuid"]
    record = double.records[olds["uuid"]]
    assert record.url == "http://x509.ilm.svc.cluster.local:9090" and record.custom_attributes == [
        {"name": "d", "content": [{"data": "x"}]}
    ]
    assert double.count(*REGISTER) == 1 and double.count("PUT", "/v2/connectors/{uuid}") == 1


@pytest.mark.parametrize("missing", ["auth_attributes", "custom_attributes"])
def test_an_old_state_without_an_input_announces_and_sends_no_edit_for_it(double, capsys, missing):
    """State written before an input existed holds no key for it: its default is what it held.
    diff and update compare alike (before, diff saw no change and update sent a PUT)."""
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    olds = {k: v for k, v in outs.items() if k != missing}
    news = props(double, admin_credentials=ADMIN)
    assert not provider.diff(outs["uuid"], olds, news).changes
    assert "changed" not in capsys.readouterr().err
    provider.update(outs["uuid"], olds, news)
    assert double.count("PUT", "/v2/connectors/{uuid}") == 0


def test_a_change_without_admin_credentials_touches_nothing_and_warns(double, capsys):
    provider = RegistrationProvider()
    olds = provider.create(props(double)).outs
    news = props(double, url="http://x509.ilm.svc.cluster.local:9090")
    assert provider.diff(olds["uuid"], olds, news).changes
    assert "url changed; the platform keeps the old values" in capsys.readouterr().err
    provider.update(olds["uuid"], olds, news)
    assert double.calls == [REGISTER]


def test_approve_once_right_after_registering(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN, approve=True)).outs
    assert outs["status"] == "connected" and double.records[outs["uuid"]].status == "connected"
    assert double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1
    provider.update(outs["uuid"], outs, {**outs, "custom_attributes": [{"name": "d", "content": "y"}]})
    assert double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1, "an approved connector is left alone"


def test_approve_later_on_update(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double, admin_credentials=ADMIN)).outs
    outs = provider.update(olds["uuid"], olds, {**olds, "approve": True}).outs
    assert outs["status"] == "connected" and double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1
    assert double.count(*REGISTER) == 1


def test_deregister_only_when_asked_and_404_is_done(double):
    provider = RegistrationProvider()
    kept = provider.create(props(double, admin_credentials=ADMIN)).outs
    provider.delete(kept["uuid"], kept)
    assert kept["uuid"] in double.records, "never de-registers unless asked"
    gone = provider.create(props(double, name="Y", url="http://y:8080", admin_credentials=ADMIN, deregister_on_destroy=True)).outs
    provider.delete(gone["uuid"], gone)
    assert gone["uuid"] not in double.records
    provider.delete(gone["uuid"], gone)  # already gone: done
    assert double.count("DELETE", "/v2/connectors/{uuid}") == 2


def test_a_failed_deregistration_says_the_status_only(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN, deregister_on_destroy=True)).outs
    wrong = {**outs, "admin_credentials": {"bearerToken": "not-the-admin-token-5c9d"}}
    with pytest.raises(RegistrationError) as caught:
        provider.delete(outs["uuid"], wrong)
    assert str(caught.value) == "de-registering the connector failed with status 403"
    assert outs["uuid"] in double.records


def test_refresh_reads_the_status_and_a_deleted_record_is_gone(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    double.records[outs["uuid"]].status = "offline"
    assert provider.read(outs["uuid"], outs).outs["status"] == "offline"
    del double.records[outs["uuid"]]
    assert provider.read(outs["uuid"], outs).id == ""
    plain = {k: v for k, v in outs.items() if k != "admin_credentials"}
    assert provider.read(outs["uuid"], plain).outs == plain, "without admin credentials refresh keeps what it knows"


def test_admin_calls_retry_5xx_and_transport_failures_until_the_deadline(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    unreachable = {**outs, "platform_url": "http://127.0.0.1:9/api", "deadline_seconds": 2}
    with pytest.raises(
        RegistrationError, match=r"^reading the connector failed \(the platform could not be reached\) after \d+ attempts"
    ):
        provider.read(outs["uuid"], unreachable)


def test_admin_by_client_certificate_through_the_gateways_tls(tmp_path):
    certificates = make_certificates(tmp_path)
    admin = {"clientCertificate": certificates.client_cert.read_text(), "clientKey": certificates.client_key.read_text()}
    with platform_double(tls=certificates) as double:
        provider = RegistrationProvider()
        base = props(double, ca_bundle=str(certificates.ca), admin_credentials=admin, approve=True)
        outs = provider.create(base).outs
        assert outs["status"] == "connected"
        assert double.admin_cert_subjects and all(s == "standin-admin" for s in double.admin_cert_subjects)
        assert double.violations == []
    assert not any(p.name.startswith("platform-admin-") for p in tmp_path.iterdir())


# Where the administrator's credentials come from, under Pulumi mocks.
def registered_admin(
    secret_data: dict[str, str] | None, admin: dict[str, Any], route: str = "direct", platform_url: str = "http://127.0.0.1:9/api"
) -> Any:
    import base64

    from components.app.program import connectors_program

    from ..support.mocks import StaticReader, run

    entry = {
        "name": "x509",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {
                "platformUrl": platform_url,
                "name": "X.509",
                "authType": "none",
                "route": route,
                "adminCredentials": admin,
                # in-cluster http is the mesh case: the proxy route is what is refused here
                "sendAdminCredentialsOverHttp": platform_url.startswith("http://core."),
            },
        },
    }
    objects = {}
    if secret_data is not None:
        objects[("secret", "ilm", "platform-admin")] = {k: base64.b64encode(v.encode()).decode() for k, v in secret_data.items()}
    mocks = run(lambda: connectors_program(StaticReader(objects)), {"connectors": [entry]})
    (found,) = mocks.of_type("pulumi-python:dynamic/connectors:Registration")
    return found


def test_admin_credentials_from_a_secret_are_read_and_kept_secret():
    found = registered_admin({"jwt": "token-from-the-secret"}, {"secretRef": {"name": "platform-admin", "bearerTokenKey": "jwt"}})
    assert found.inputs["admin_credentials"] == {"bearerToken": "token-from-the-secret"}
    assert "admin_credentials" in found.secret_paths


def test_admin_credentials_given_as_values_are_secret_too():
    found = registered_admin(None, {"clientCertificate": "PEM-CERT", "clientKey": "PEM-KEY"})
    assert found.inputs["admin_credentials"] == {"clientCertificate": "PEM-CERT", "clientKey": "PEM-KEY"}
    assert "admin_credentials" in found.secret_paths


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (None, 'Secret "platform-admin" not found in namespace "ilm"'),
        ({"other": "x"}, 'Secret "platform-admin" in namespace "ilm" has no key "jwt"'),
    ],
)
def test_a_missing_admin_secret_or_key_stops_before_anything_exists(data, fragment):
    from components import InvalidArgumentsError

    with pytest.raises(InvalidArgumentsError) as caught:
        registered_admin(data, {"secretRef": {"name": "platform-admin", "bearerTokenKey": "jwt"}})
    assert fragment in str(caught.value) and "connectors[0] (x509)" in str(caught.value)


@pytest.mark.parametrize(
    ("admin", "fragment"),
    [
        (
            {"bearerToken": "t", "clientCertificate": "c", "clientKey": "k"},
            "set either bearerToken, or clientCertificate and clientKey",
        ),
        ({"clientCertificate": "c"}, "set bearerToken, or clientCertificate and clientKey, or secretRef"),
        ({"secretRef": {"name": "s"}}, "set either bearerTokenKey, or clientCertificateKey and clientKeyKey"),
        ({"bearerToken": "t", "secretRef": {"name": "s", "bearerTokenKey": "k"}}, "either secretRef or the credential values"),
    ],
)
def test_admin_credentials_take_one_clear_shape(admin, fragment):
    from components import InvalidArgumentsError
    from components.app.program import parse_connectors

    entry = {
        "name": "x",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {"platformUrl": "http://p/api", "name": "n", "authType": "none", "adminCredentials": admin},
        },
    }
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_connectors([entry])
    assert fragment in str(caught.value) and "t" not in [p.split(": ")[-1] for p in caught.value.problems]


@pytest.mark.parametrize("setting", ["approve", "deregisterOnDestroy"])
def test_approve_and_deregister_need_admin_credentials(setting):
    from components import InvalidArgumentsError
    from components.app.program import parse_connectors

    entry = {
        "name": "x",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {"platformUrl": "http://p/api", "name": "n", "authType": "none", setting: True},
        },
    }
    with pytest.raises(InvalidArgumentsError, match=f"{setting}: true needs adminCredentials"):
        parse_connectors([entry])


@pytest.mark.parametrize("admin", [{"bearerToken": "t"}, {"clientCertificate": "c", "clientKey": "k"}])
def test_admin_credentials_on_the_api_server_proxy_route_are_refused(ambient_kubeconfig, admin):
    from components import InvalidArgumentsError

    with pytest.raises(InvalidArgumentsError, match=r"adminCredentials need registration\.route direct"):
        registered_admin(None, admin, "apiServerProxy", "http://core.ilm.svc.cluster.local:8080/api")


REGISTERING_STACKS = ["with-registration", "otpki", "timestamp-formatting"]
V2_INFO = {"interfaces": [{"code": c, "version": "v2"} for c in ("info", "health", "metrics", "compliance")]}


def props_from_config(registration: dict[str, Any], platform_url: str, url: str) -> dict[str, Any]:
    """The registration's inputs as the component makes them from a ``registration`` block."""
    given = RegistrationArgs.model_validate(registration).model_dump(by_alias=True, exclude={"admin_credentials"})
    values = {i.python: given[i.config] for i in contract.TABLE if i.from_config}
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
    assert contract.changed(olds, news) == []
    assert contract.changed(olds, {**news, "custom_attributes": [{"name": "d", "content": "y"}]}) == ["custom_attributes"]


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
