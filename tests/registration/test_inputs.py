"""``registration.inputs``: one table, a name per audience, defaults and the one comparison."""

from __future__ import annotations

import pytest

from components.registration import inputs


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
    row = inputs.BY_PYTHON[python]
    assert (row.python, row.config, row.package) == (python, config, package)


def test_names_are_unique_for_every_audience():
    for audience in ("python", "config", "package"):
        names = [getattr(i, audience) for i in inputs.TABLE]
        assert len(names) == len(set(names)), audience
    assert not {o.package for o in inputs.OUTPUTS} & {i.package for i in inputs.TABLE}


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        (inputs.ALWAYS_SECRET, ("auth_attributes", "admin_credentials")),
        (inputs.PLATFORM, ("url", "auth_type", "auth_attributes", "custom_attributes")),
        (inputs.IDENTITY, ("name", "connector_version")),
        (inputs.OUTPUT_NAMES, ("uuid", "status", "registered_at")),
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
    assert inputs.value(props, name) == expected


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
    assert inputs.changed(olds, news) == changed


def test_with_defaults_refuses_an_unknown_input():
    assert inputs.with_defaults({"name": "n"})["route"] == "direct"
    with pytest.raises(TypeError, match="unknown inputs: nmae"):
        inputs.with_defaults({"nmae": "n"})


def test_config_names():
    assert inputs.config_names(["adopt_uuid", "connector_version", "url"]) == ["uuid", "version", "url"]


def test_the_registrations_output_names_are_written_in_one_place():
    """``inputs.UUID``, ``STATUS``, ``REGISTERED_AT`` (and their package names, made from them)
    are the only spellings: a literal copy in the code that reads or writes the outputs fails."""
    import ast

    from ..conftest import ROOT

    everywhere = {inputs.REGISTERED_AT, "registeredAt"}
    readers = {"provider.py", "resource.py", "stack_status.py", "stack_check.py"}
    copies = []
    for path in [*(ROOT / "components").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]:
        if "sdk" in path.parts or path.name == "inputs.py":
            continue
        names = everywhere | ({inputs.UUID, inputs.STATUS} if path.name in readers else set())
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                copies.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert copies == [], copies
