"""``registration.resource``: the registration's type, its secret inputs and options, under mocks."""

from __future__ import annotations

import pytest

from components.registration.resource import LEGACY_TYPE_TOKEN, TYPE_TOKEN, Registration, secret_where_always
from components.type_tokens import dynamic_type_token

from ..support.mocks import run


@pytest.mark.parametrize(
    ("module", "name", "token"),
    [("connectors", "Registration", "pulumi-python:dynamic/connectors:Registration"), ("", "Resource", LEGACY_TYPE_TOKEN)],
)
def test_dynamic_type_token(module, name, token):
    assert dynamic_type_token(module, name) == token


def test_the_registration_is_its_own_type_with_the_shared_one_as_alias():
    assert TYPE_TOKEN == "pulumi-python:dynamic/connectors:Registration"
    assert [a.type_ for a in Registration.aliases()] == [LEGACY_TYPE_TOKEN]


def test_credentials_are_secret_whatever_the_config():
    import pulumi

    made = secret_where_always({"name": "n", "auth_attributes": [], "admin_credentials": None})
    assert made["name"] == "n" and made["admin_credentials"] is None
    assert isinstance(made["auth_attributes"], pulumi.Output)


def test_registered_with_every_input_and_the_outputs_unset():
    given = {"platform_url": "https://p/api", "name": "n", "url": "http://c", "auth_type": "basic"}
    mocks = run(lambda: Registration("r", **given, auth_attributes=[{"name": "p", "content": "s"}]))
    recorded = mocks.one(TYPE_TOKEN)
    assert recorded.inputs["connector_version"] == "v2" and recorded.inputs["deadline_seconds"] == 600
    assert "auth_attributes" in recorded.secret_paths
    with pytest.raises(TypeError, match="unknown inputs"):
        Registration("bad", nmae="n")
