"""Which fields of each entry hold a secret, read from the stack file's ``secure`` values."""

from __future__ import annotations

import pathlib
from typing import Any

import pulumi
import pytest
import yaml

from components.app import secret_config
from components.app.secret_config import ALL, secret_fields

SECURE = {"secure": "v1:ciphertext"}


def entry(**spec: Any) -> dict[str, Any]:
    return {"name": "x509", "spec": {"image": {"repository": "r/x", "tag": "1"}, **spec}}


@pytest.fixture
def stack_file(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "Pulumi.dev.yaml"
    monkeypatch.setattr(secret_config, "running_stack_file", lambda: path)
    monkeypatch.setattr(pulumi.runtime, "is_config_secret", lambda key: True)

    def write(connectors: Any) -> pathlib.Path:
        path.write_text(yaml.safe_dump({"config": {"connectors:connectors": connectors}}))
        return path

    return write


@pytest.mark.parametrize(
    ("connectors", "expected"),
    [
        pytest.param(SECURE, [ALL, ALL], id="the whole key one secret"),
        pytest.param([SECURE, entry()], [ALL, frozenset()], id="one whole entry"),
        pytest.param([entry(env=[{"name": "A", "value": SECURE}]), entry()], [{"env"}, set()], id="an env value"),
        pytest.param([entry(), {"name": SECURE}], [set(), {"name"}], id="a top-level field"),
        pytest.param(
            [entry(registration={"adminCredentials": {"bearerToken": SECURE}}), entry()],
            [set(), set()],
            id="an admin token: the registration keeps it secret anyway",
        ),
        pytest.param(
            [entry(registration={"authAttributes": [{"name": "p", "content": SECURE}]}), entry()],
            [set(), set()],
            id="an attribute's content: secret anyway",
        ),
        pytest.param(
            [entry(registration={"name": SECURE}), entry()],
            [{"registration"}, set()],
            id="the registration's name",
        ),
        pytest.param([entry(), entry(), {"name": SECURE}], [set(), set()], id="an entry beyond those counted"),
    ],
)
def test_secret_fields_by_entry(stack_file, connectors, expected):
    stack_file(connectors)
    assert secret_fields("connectors", 2) == [frozenset(e) for e in expected]


def test_no_secret_key_means_no_secret_field(stack_file, monkeypatch):
    stack_file([{"name": SECURE}])
    monkeypatch.setattr(pulumi.runtime, "is_config_secret", lambda key: False)
    assert secret_fields("connectors", 1) == [frozenset()]


def test_an_unreadable_stack_file_makes_everything_secret(stack_file):
    stack_file(None).write_text("config: [unclosed")
    assert secret_fields("connectors", 2) == [ALL, ALL]


def test_the_stack_file_is_found_under_the_projects_root(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "stacks").mkdir(parents=True)
    (root / "stacks" / "Pulumi.dev.yaml").write_text("config: {}\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(pulumi, "get_stack", lambda: "dev")
    monkeypatch.setattr(pulumi, "get_root_directory", lambda: str(root))
    assert secret_config.running_stack_file() == root / "stacks" / "Pulumi.dev.yaml"
    monkeypatch.setattr(pulumi, "get_root_directory", lambda: str(tmp_path / "elsewhere"))
    assert secret_config.running_stack_file() is None


@pytest.mark.parametrize(
    ("path", "secure", "expected"),
    [
        ("connectors[0].spec.env[1].value", ["connectors[0].spec.env[1].value"], True),
        ("connectors[0].spec.env[1].value", ["connectors[0]"], True),
        ("connectors[0].spec.env[1].value", ["connectors"], True),
        ("connectors[0].spec.env[1].value", ["connectors[0].spec.env[1]"], True),
        ("connectors[0].spec.env[1].value", ["connectors[0].spec.env[1].val"], False),
        ("connectors[10].spec", ["connectors[1]"], False),
        ("connectors[0].spec", [], False),
    ],
)
def test_a_value_inside_a_secret_is_secret(path, secure, expected):
    assert secret_config.is_secure(path, secure) is expected


@pytest.mark.parametrize("secret_at", ["whole key", "whole entry", "the token"])
def test_no_warning_for_a_credential_inside_a_secret(stack_file, monkeypatch, secret_at):
    from components.app.plain_credentials import warn_of_plain_credentials
    from components.app.program import parse_connectors

    registration = {"platformUrl": "https://p/api", "name": "n", "authType": "none", "adminCredentials": {"bearerToken": "t"}}
    given = {**entry(registration=registration), "namespace": "ilm"}
    on_disk = {
        "whole key": SECURE,
        "whole entry": [SECURE],
        "the token": [entry(registration={**registration, "adminCredentials": {"bearerToken": SECURE}})],
    }[secret_at]
    stack_file(on_disk)
    warned: list[str] = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, *args, **kwargs: warned.append(message))
    warn_of_plain_credentials(parse_connectors([given]), pulumi.Config("connectors"))
    assert warned == []
    stack_file([entry(registration={**registration, "name": SECURE})])
    warn_of_plain_credentials(parse_connectors([given]), pulumi.Config("connectors"))
    assert len(warned) == 1 and "connectors[0].spec.registration.adminCredentials.bearerToken" in warned[0]
