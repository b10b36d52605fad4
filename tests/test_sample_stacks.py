"""Every sample stack renders schema-valid objects, equal in substance to the operator sample."""

from __future__ import annotations

import pytest
import yaml

from components.args.connector_spec import ConnectorEntry
from components.render.connector import render_connector

from .conftest import DATA, SAMPLE_STACKS, stack_connectors
from .schema import assert_valid

SAMPLE_FILES = {
    "minimal": "connector_minimal.yaml",
    "full": "connector_full.yaml",
    "with-registration": "connector_with_registration.yaml",
    "otpki": "connector_otpki.yaml",
    "timestamp-formatting": "connector_timestamp_formatting.yaml",
}


@pytest.mark.parametrize("stack", [*SAMPLE_STACKS, "dev"])
def test_every_object_of_every_stack_is_schema_valid(stack):
    for raw in stack_connectors(stack):
        rendered = render_connector(ConnectorEntry.model_validate(raw).to_args())
        for obj in rendered.objects():
            assert_valid(obj)


@pytest.mark.parametrize("stack", SAMPLE_STACKS)
def test_stack_holds_the_operator_sample_unchanged(stack):
    sample = yaml.safe_load((DATA / "operator-samples" / SAMPLE_FILES[stack]).read_text())
    (entry,) = stack_connectors(stack)
    assert entry["spec"] == sample["spec"]
    assert entry["name"] == sample["metadata"]["name"]
    assert entry["namespace"] == sample["metadata"]["namespace"]


def test_full_sample_renders_every_kind():
    (raw,) = stack_connectors("full")
    rendered = render_connector(ConnectorEntry.model_validate(raw).to_args())
    kinds = sorted(o["kind"] for o in rendered.objects())
    assert kinds == ["Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor"]
    assert rendered.pod_disruption_budget["spec"]["minAvailable"] == 2
    assert rendered.deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert rendered.endpoint == "http://ejbca-ng-connector.ilm-system.svc.cluster.local:8443"


def test_the_service_monitor_schema_is_real():
    """The CRD check refuses what prometheus-operator refuses."""
    import jsonschema

    (raw,) = stack_connectors("full")
    monitor = render_connector(ConnectorEntry.model_validate(raw).to_args()).service_monitor
    assert_valid(monitor)
    monitor["spec"]["endpoints"][0]["interval"] = "every thirty seconds"
    with pytest.raises(jsonschema.ValidationError):
        assert_valid(monitor)
