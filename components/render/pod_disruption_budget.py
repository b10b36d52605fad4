from __future__ import annotations

from typing import Any

from ..args import PodDisruptionBudgetArgs
from .meta import object_meta


def render_pod_disruption_budget(
    name: str, namespace: str, labels: dict[str, str], selector: dict[str, str], pdb: PodDisruptionBudgetArgs
) -> dict[str, Any]:
    """minAvailable if set, else maxUnavailable if set, else minAvailable 1."""
    if pdb.min_available is not None:
        budget: dict[str, Any] = {"minAvailable": pdb.min_available}
    elif pdb.max_unavailable is not None:
        budget = {"maxUnavailable": pdb.max_unavailable}
    else:
        budget = {"minAvailable": 1}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": object_meta(name, namespace, labels),
        "spec": {**budget, "selector": {"matchLabels": dict(selector)}},
    }
