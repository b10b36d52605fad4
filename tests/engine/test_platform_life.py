"""The connector's whole life with the platform, through the real engine: adopt, 409, edit,
approve, de-register and refresh, with every request to the stateful stand-in counted."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi import automation as auto

from tests.support.engine_stacks import connector

from ..support.engine_stacks import EngineStack, changes
from ..support.platform_double import ADMIN_TOKEN, PlatformDouble

REGISTRATION = "pulumi-python:dynamic/connectors:Registration"
URL = "http://x509.ilm.svc.cluster.local:8080"
ADMIN = {"bearerToken": ADMIN_TOKEN}
REGISTER = ("POST", "/v2/connector/register")
GET = ("GET", "/v2/connectors/{uuid}")
PUT = ("PUT", "/v2/connectors/{uuid}")
DELETE = ("DELETE", "/v2/connectors/{uuid}")
APPROVE = ("PATCH", "/v2/connectors/{uuid}/approve")
LIST = ("POST", "/v2/connectors/list")


def counts(double: PlatformDouble) -> dict[str, int]:
    return {
        name: double.count(*call)
        for name, call in (
            ("register", REGISTER),
            ("get", GET),
            ("put", PUT),
            ("delete", DELETE),
            ("approve", APPROVE),
            ("list", LIST),
        )
        if double.count(*call)
    }


def uuid_of(result: auto.UpResult) -> str:
    return result.outputs["x509"].value["registration"]["uuid"]


def registration(stack: EngineStack) -> dict[str, Any]:
    for resource in stack.stack.export_stack().deployment["resources"]:
        if resource["type"] == REGISTRATION:
            return resource
    raise AssertionError("no registration in state")


def test_adopting_a_known_registration_posts_nothing(make_stack, double):
    record = double.add("X.509", URL)
    stack = make_stack([connector(double.url, uuid=record.uuid)], name="adopt")
    assert uuid_of(stack.up()) == record.uuid
    assert counts(double) == {}

    stack.set_connectors([connector(double.url, uuid=record.uuid, adminCredentials=ADMIN)], secret=True)
    stack.up()
    assert counts(double) == {}, "admin credentials added later: an input change, nothing to do on the platform"


def test_adopting_a_missing_uuid_with_admin_credentials_names_it(make_stack, double):
    missing = "5e1f3c9a-0000-4000-8000-000000000001"
    stack = make_stack([connector(double.url, uuid=missing, adminCredentials=ADMIN)], name="adopt-missing")
    stack.set_connectors([connector(double.url, uuid=missing, adminCredentials=ADMIN)], secret=True)
    with pytest.raises(auto.CommandError):
        stack.up()
    text = "\n".join(stack.output)
    assert "error: the uuid set in registration.uuid is not a connector on the platform (status 404)" in text
    assert "Traceback" not in text
    assert counts(double) == {"get": 1}


def test_setting_the_uuid_on_an_existing_stack_changes_nothing_on_the_platform(make_stack, double):
    stack = make_stack([connector(double.url)], name="set-uuid")
    uuid = uuid_of(stack.up())
    stack.set_connectors([connector(double.url, uuid=uuid)])
    assert uuid_of(stack.up()) == uuid
    assert counts(double) == {"register": 1} and len(double.records) == 1


def test_a_409_is_explained_then_adopted_with_admin_credentials(make_stack, double):
    record = double.add("X.509", URL)
    stack = make_stack([connector(double.url)], name="duplicate")
    with pytest.raises(auto.CommandError):
        stack.up()
    text = "\n".join(stack.output)
    assert "status 409" in text and "registration.uuid" in text and "registration.adminCredentials" in text
    assert "Traceback" not in text
    stack.set_connectors([connector(double.url, adminCredentials=ADMIN)], secret=True)
    assert uuid_of(stack.up()) == record.uuid
    assert len(double.records) == 1, "no duplicate either way"
    assert counts(double) == {"register": 2, "list": 1}
    assert ADMIN_TOKEN not in stack.state_file() and ADMIN_TOKEN not in "\n".join(stack.output)


def secret_token(stack: EngineStack, connectors: list[dict[str, Any]]) -> None:
    """The connectors as YAML in the stack file, the admin token set alone as a secret (the
    rest stays readable in the preview)."""
    stack.set_connectors_yaml(connectors)
    path = "connectors[0].spec.registration.adminCredentials.bearerToken"
    stack.stack.set_config(path, auto.ConfigValue(ADMIN_TOKEN, secret=True), path=True)


def test_a_new_url_edits_the_record_in_place_and_preview_lists_it(make_stack, double):
    config = connector(double.url, adminCredentials=ADMIN)
    stack = make_stack([config], name="edit")
    secret_token(stack, [config])
    uuid = uuid_of(stack.up())
    changed = copy.deepcopy(config)
    changed["spec"]["service"] = {"port": 9090}
    changed["spec"]["registration"]["customAttributes"] = [{"name": "description", "content": "new"}]
    secret_token(stack, [changed])
    stack.output.clear()
    preview = stack.preview()
    line = next(line for line in stack.output if "x509-registration" in line)
    assert "update" in line and "url" in line and "custom_attributes" in line, line
    assert preview.change_summary.get("update", 0) >= 1 and not preview.change_summary.get("replace")
    assert counts(double) == {"register": 1}, "preview calls nothing"
    double.records[uuid].status = "connected"  # approved in the platform's UI: the Core edits approved records only
    assert uuid_of(stack.up()) == uuid
    assert double.records[uuid].url == "http://x509.ilm.svc.cluster.local:9090"
    assert double.records[uuid].custom_attributes == [{"name": "description", "content": [{"data": "new"}]}]
    assert counts(double) == {"register": 1, "put": 1}
    assert changes(stack.up().summary.resource_changes) == {}
    assert counts(double) == {"register": 1, "put": 1}


def test_a_change_without_admin_credentials_warns_and_keeps_the_platform(make_stack, double):
    config = connector(double.url)
    stack = make_stack([config], name="no-admin")
    uuid = uuid_of(stack.up())
    changed = copy.deepcopy(config)
    changed["spec"]["service"] = {"port": 9090}
    stack.set_connectors([changed])
    for operation in (stack.preview, stack.up):
        stack.output.clear()
        operation()
        warned = [line for line in stack.output if "the platform keeps the old values" in line]
        assert warned and "--replace" in "\n".join(stack.output), stack.output
        assert all("connectors[0] (x509)" in line and config["spec"]["registration"]["name"] not in line for line in warned)
    assert double.records[uuid].url == URL and counts(double) == {"register": 1}


def test_approve_once(make_stack, double):
    config = connector(double.url, adminCredentials=ADMIN, approve=True)
    stack = make_stack([config], name="approve")
    stack.set_connectors([config], secret=True)
    up = stack.up()
    assert up.outputs["x509"].value["registration"]["status"] == "connected"
    stack.up()
    assert counts(double) == {"register": 1, "approve": 1}


def test_deregister_on_destroy_and_when_the_connector_leaves(make_stack, double):
    config = connector(double.url, adminCredentials=ADMIN, deregisterOnDestroy=True)
    stack = make_stack([config], name="deregister")
    stack.set_connectors([config], secret=True)
    uuid = uuid_of(stack.up())
    stack.set_connectors([], secret=True)
    stack.up()
    assert uuid not in double.records and counts(double) == {"register": 1, "delete": 1}

    stack.set_connectors([config], secret=True)
    second = uuid_of(stack.up())
    del double.records[second]  # deleted by hand on the platform: 404 counts as done
    stack.destroy()
    assert counts(double) == {"register": 2, "delete": 2}


def test_destroy_without_the_opt_in_leaves_the_record(make_stack, double):
    config = connector(double.url, adminCredentials=ADMIN)
    stack = make_stack([config], name="keep")
    stack.set_connectors([config], secret=True)
    uuid = uuid_of(stack.up())
    stack.destroy()
    assert uuid in double.records and counts(double) == {"register": 1}


def test_refresh_reads_the_platform_and_a_deleted_record_registers_again_once(make_stack, double):
    config = connector(double.url, adminCredentials=ADMIN)
    stack = make_stack([config], name="refresh")
    stack.set_connectors([config], secret=True)
    uuid = uuid_of(stack.up())
    double.records[uuid].status = "offline"
    stack.refresh(stack.urn(REGISTRATION))
    assert registration(stack)["outputs"]["status"] == "offline"

    del double.records[uuid]
    stack.refresh(stack.urn(REGISTRATION))
    assert not [r for r in stack.stack.export_stack().deployment["resources"] if r["type"] == REGISTRATION]
    again = uuid_of(stack.up())
    assert again != uuid and again in double.records
    stack.up()
    assert counts(double) == {"register": 2, "get": 2}
