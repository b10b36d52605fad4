from __future__ import annotations

from components.args.blocks import PodDisruptionBudgetArgs
from components.render.meta import object_meta
from components.render.objects import Obj, type_fields
from components.render.workload import Workload


def render_pod_disruption_budget(w: Workload, pdb: PodDisruptionBudgetArgs | None) -> Obj:
    """minAvailable if set, else maxUnavailable if set, else minAvailable 1."""
    if pdb is not None and pdb.min_available is not None:
        budget: Obj = {"minAvailable": pdb.min_available}
    elif pdb is not None and pdb.max_unavailable is not None:
        budget = {"maxUnavailable": pdb.max_unavailable}
    else:
        budget = {"minAvailable": 1}
    return {
        **type_fields("pod_disruption_budget"),
        "metadata": object_meta(w.name, w.namespace, w.labels),
        "spec": {**budget, "selector": {"matchLabels": dict(w.selector_labels)}},
    }
