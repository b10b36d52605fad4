"""What stays secret in state: a credential given as plain stack config is named at preview
(the value is kept in clear only where the engine copies the project's config, the
registrations' provider resource), and one set with ``config set --path --secret`` is nowhere."""

from __future__ import annotations

import json
from typing import Any

from pulumi import automation as auto

from ..support.platform_double import platform_double

PASSWORD = "plain-config-password-4e1b"
TOKEN = "plain-config-admin-token-a7c2"
PATHS = (
    "connectors[0].spec.registration.authAttributes[0].content",
    "connectors[0].spec.registration.adminCredentials.bearerToken",
)


def connector(platform_url: str) -> dict[str, Any]:
    return {
        "name": "x509",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r.example/x509", "tag": "1.0.0"},
            "registration": {
                "platformUrl": platform_url,
                "name": "X.509",
                "authType": "basic",
                "authAttributes": [{"name": "password", "content": PASSWORD}],
                "adminCredentials": {"bearerToken": TOKEN},
                "retryInitialSeconds": 0.05,
                "retryMaxSeconds": 0.1,
                "deadlineSeconds": 5,
            },
        },
    }


def holders(state_text: str, value: str) -> list[str]:
    """The types of the resources whose state holds ``value`` in clear (anywhere else too)."""
    state = json.loads(state_text)
    resources = state.get("checkpoint", state).get("latest", state.get("deployment", {})).get("resources", [])
    found = [r["type"] for r in resources if value in json.dumps(r)]
    if value in state_text and not found:
        found.append("<outside the resources>")
    return found


def test_a_plain_credential_is_named_and_kept_in_clear_only_as_the_providers_input(make_stack):
    with platform_double() as double:
        stack = make_stack([connector(double.url)], name="plain")
        stack.preview()
        preview = "\n".join(stack.output)
        for path in PATHS:
            assert f"{path} is a credential in plain stack config" in preview
            assert f"pulumi config set --path --secret '{path}' <value>" in preview
        assert PASSWORD not in preview and TOKEN not in preview
        stack.up()
        state = stack.state_file()
    for value in (PASSWORD, TOKEN):
        assert holders(state, value) == ["pulumi:providers:pulumi-python"]


def test_a_credential_set_with_path_and_secret_is_nowhere_in_state(make_stack):
    with platform_double() as double:
        given = connector(double.url)
        registration = given["spec"]["registration"]
        registration["authAttributes"][0]["content"] = "to be set as a secret"
        registration["adminCredentials"]["bearerToken"] = "to be set as a secret"
        stack = make_stack([given], name="secret")
        stack.set_connectors_yaml([given])
        for path, value in zip(PATHS, (PASSWORD, TOKEN), strict=True):
            stack.stack.set_config(path, auto.ConfigValue(value, secret=True), path=True)
        stack.preview()
        assert "is a credential in plain stack config" not in "\n".join(stack.output)
        stack.up()
        assert len(double.requests) == 1 and double.requests[0]["authAttributes"][0]["content"] == [{"data": PASSWORD}]
        state = stack.state_file()
    assert PASSWORD not in state and TOKEN not in state
