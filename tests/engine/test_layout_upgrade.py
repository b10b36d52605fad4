"""A stack written before the package was split into modules (``tests/data/pre-layout-stack``: a state
exported from commit 9fa4c36, whose pickled registration provider names the module
``components.registration``) is refreshed, updated and destroyed by today's code: nothing is
replaced, nothing reaches the platform, the uuid stays. A connector of the same name added in
another namespace is created beside it, registering once, and changes nothing of the old one."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import yaml
from pulumi import automation as auto

from tests.support.samples import DATA

from ..support.engine_stacks import changes, import_saved_stack
from ..support.platform_double import platform_double

SAVED = DATA / "pre-layout-stack"
REGISTRATION = "pulumi-python:dynamic/connectors:Registration"


def pickled_module(state: dict[str, Any]) -> str:
    """The module path the registration's pickled provider names (it is a secret: its plaintext
    is the base64 of a pickle, whose text shows the module)."""
    import base64

    (resource,) = [r for r in state["deployment"]["resources"] if r["type"] == REGISTRATION]
    return base64.b64decode(json.loads(resource["inputs"]["__provider"]["plaintext"])).decode("latin-1")


def imported_stack(engine: dict[str, str], tmp_path: pathlib.Path, platform_url: str) -> auto.Stack:
    return import_saved_stack(engine, tmp_path, SAVED, "layout", "pre-layout-state", platform_url)


def test_a_stack_from_before_the_layout_is_refreshed_updated_and_destroyed_unchanged(engine, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the saved render directory is relative: rendered/
    with platform_double() as double:
        stack = imported_stack(engine, tmp_path, double.url)
        before = stack.export_stack().deployment
        assert "components.registration\x94" in pickled_module({"deployment": before})
        (old,) = [r for r in before["resources"] if r["type"] == REGISTRATION]

        # Render mode has no cluster to read the objects back from: the registration is refreshed.
        refreshed = stack.refresh(target=[old["urn"]])
        assert changes(refreshed.summary.resource_changes) == {}

        preview = stack.preview()
        assert changes(preview.change_summary) == {}, preview.change_summary
        up = stack.up()
        assert changes(up.summary.resource_changes) == {}
        assert up.outputs["x509"].value["registration"]["uuid"] == old["outputs"]["uuid"]

        config = json.loads(
            yaml.safe_load((tmp_path / "work" / "Pulumi.layout.yaml").read_text())["config"]["connectors:connectors"]
        )
        config[0]["spec"]["image"]["tag"] = "1.1.0"
        stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(config)))
        updated = stack.up()
        assert changes(updated.summary.resource_changes) == {"update": 1}, updated.summary.resource_changes
        assert updated.outputs["x509"].value["registration"]["uuid"] == old["outputs"]["uuid"]
        assert updated.outputs["x509"].value["currentImage"] == "r.example/x509:1.1.0"

        # The same connector in a second namespace: created beside, the first one left as it is.
        config.append({**config[0], "namespace": "prod"})
        stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(config)))
        spread = stack.up()
        assert set(changes(spread.summary.resource_changes)) == {"create"}, spread.summary.resource_changes
        maps = spread.outputs["connectors"].value
        assert maps["ilm/x509"]["registration"]["uuid"] == old["outputs"]["uuid"]
        assert maps["prod/x509"]["registration"]["uuid"] != old["outputs"]["uuid"]
        assert double.calls == [("POST", "/v2/connector/register")]

        destroyed = stack.destroy()
        assert destroyed.summary.resource_changes.get("delete", 0) >= 15
        assert stack.export_stack().deployment.get("resources") in (None, [])
    assert double.calls == [("POST", "/v2/connector/register")]
