"""``render.pod_disruption_budget``: minAvailable if set, else maxUnavailable if set, else minAvailable 1."""

from __future__ import annotations

import pytest

from components.args.blocks import PodDisruptionBudgetArgs
from components.render.pod_disruption_budget import render_pod_disruption_budget

from ..support.workloads import LABELS, SELECTOR, workload


@pytest.mark.parametrize(
    ("given", "budget"),
    [
        (None, {"minAvailable": 1}),
        ({"enabled": True}, {"minAvailable": 1}),
        ({"enabled": True, "minAvailable": 2}, {"minAvailable": 2}),
        ({"enabled": True, "maxUnavailable": "25%"}, {"maxUnavailable": "25%"}),
        ({"enabled": True, "minAvailable": "50%", "maxUnavailable": 1}, {"minAvailable": "50%"}),
    ],
)
def test_render_pod_disruption_budget(given, budget):
    pdb = render_pod_disruption_budget(workload(), None if given is None else PodDisruptionBudgetArgs.model_validate(given))
    assert pdb == {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "demo", "namespace": "ilm", "labels": LABELS},
        "spec": {**budget, "selector": {"matchLabels": SELECTOR}},
    }
