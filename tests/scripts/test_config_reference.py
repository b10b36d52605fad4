"""The field reference and the editor schema are generated from the models: a stale one fails
here; every sample stack is valid against the schema, and the schema refuses what the models do."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from scripts import config_reference

from ..conftest import ROOT

STACKS = sorted((ROOT / "stacks").glob("Pulumi.*.yaml"))


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(config_reference.SCHEMA_FILE.read_text()))


def test_the_committed_reference_and_schema_are_the_models():
    assert config_reference.main(["--check"]) == 0, "run: python -m scripts.config_reference"


@pytest.mark.parametrize("path", STACKS, ids=lambda p: p.name)
def test_every_sample_stack_is_valid_and_names_the_schema(path):
    text = path.read_text()
    assert text.startswith("# yaml-language-server: $schema=../docs/stack-config.schema.json\n")
    assert list(validator().iter_errors(yaml.safe_load(text))) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda e: e["spec"].update(replicsa=2),
        lambda e: e["spec"].update(replicas="3"),
        lambda e: e["spec"]["image"].update(pullPolicy="Sometimes"),
        lambda e: e.pop("namespace"),
    ],
    ids=["unknown-field", "string-replicas", "not-an-allowed-value", "missing-namespace"],
)
def test_the_schema_refuses_what_the_models_refuse(change):
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.minimal.yaml").read_text())
    change(document["config"]["connectors:connectors"][0])
    assert list(validator().iter_errors(document))


def test_a_secret_may_stand_for_any_string():
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.minimal.yaml").read_text())
    document["config"]["connectors:connectors"][0]["spec"]["image"]["tag"] = {"secure": "v1:abc"}
    assert list(validator().iter_errors(document)) == []


def test_the_reference_lists_every_field_of_the_models():
    text = config_reference.REFERENCE_FILE.read_text()
    for field in ("`spec.registration.adminCredentials.bearerToken`", "`spec.configTokenSecretRef.tokenKey`", "`retainOnDelete`"):
        assert field in text
