"""``registration.contract``: the inputs' and outputs' tables, defaults, comparison and names."""

from __future__ import annotations

import re

import pytest

from components.registration import contract
from components.registration.provider import now_utc


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


def test_the_schedule_and_the_time_as_the_outputs_hold_it():
    assert contract.schedule({"retry_initial_seconds": 1, "deadline_seconds": None}) == (1.0, 300.0, 600.0)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", now_utc())
