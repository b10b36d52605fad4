"""What a workload renders to: plain Kubernetes objects, and the checksum stamp on its pods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .meta import CHECKSUM_ANNOTATION

Obj = dict[str, Any]


@dataclass(frozen=True)
class RenderedWorkload:
    """Plain Kubernetes objects; optional kinds are None when not enabled."""

    deployment: Obj
    service: Obj
    service_account: Obj
    pod_disruption_budget: Obj | None
    service_monitor: Obj | None
    network_policy: Obj | None
    ingress: Obj | None
    endpoint: str
    current_image: str

    def objects(self) -> list[Obj]:
        return [
            o
            for o in (
                self.service_account,
                self.service,
                self.deployment,
                self.pod_disruption_budget,
                self.service_monitor,
                self.network_policy,
                self.ingress,
            )
            if o is not None
        ]


def stamp_checksum(deployment: Obj, config_checksum: str) -> Obj:
    """A copy of the Deployment whose pod template carries ``config_checksum``."""
    template = deployment["spec"]["template"]
    annotations = {**template["metadata"].get("annotations", {}), CHECKSUM_ANNOTATION: config_checksum}
    metadata = {**template["metadata"], "annotations": annotations}
    return {**deployment, "spec": {**deployment["spec"], "template": {**template, "metadata": metadata}}}
