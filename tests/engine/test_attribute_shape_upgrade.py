"""A stack registered before attributes were sent in the Core's shape (``tests/data/
attribute-shape-stack``: a state exported from commit b4eb253, its custom and auth attributes
in the operator's form, with admin credentials that would edit the record on any change)
shows no change and sends nothing on ``preview --diff``, ``up`` and ``refresh``: the form the
user wrote is kept, the platform's form made from it only when a request is built (#30)."""

from __future__ import annotations

import json

from tests.support.samples import DATA

from ..support.engine_stacks import changes, import_saved_stack
from ..support.platform_double import Record, platform_double

SAVED = DATA / "attribute-shape-stack"
REGISTRATION = "pulumi-python:dynamic/connectors:Registration"


def test_a_stack_registered_in_the_old_form_changes_nothing_and_sends_nothing(engine, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the saved render directory is relative: rendered/
    saved = json.loads((SAVED / "state.json").read_text())
    (old,) = [r for r in saved["deployment"]["resources"] if r["type"] == REGISTRATION]
    assert old["inputs"]["custom_attributes"][0] == {"name": "description", "content": "X.509 compliance provider"}
    with platform_double() as double:
        uuid = old["outputs"]["uuid"]
        double.records[uuid] = Record(uuid, "X.509", "v2", old["inputs"]["url"], "basic", [], [])
        stack = import_saved_stack(engine, tmp_path, SAVED, "shape", "attribute-shape-state", double.url)

        preview = stack.preview(diff=True)
        assert changes(preview.change_summary) == {}, preview.change_summary
        up = stack.up()
        assert changes(up.summary.resource_changes) == {}, up.summary.resource_changes
        assert up.outputs["x509"].value["registration"]["uuid"] == uuid

        refreshed = stack.refresh(target=[old["urn"]])
        assert changes(refreshed.summary.resource_changes) == {}, refreshed.summary.resource_changes
        assert changes(stack.preview(diff=True).change_summary) == {}
        assert [call for call in double.calls if call[0] != "GET"] == [], "nothing but the refresh's read"
