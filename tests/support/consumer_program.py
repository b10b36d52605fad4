"""A tiny Pulumi program of another team: it imports the component and wires its own values."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from components import ConnectorArgs, ConnectorComponent


def program() -> pulumi.Output[str]:
    settings = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings", "namespace": "team"}, data={"tier": "gold"})
    tag = settings.metadata.apply(lambda _: "2.0.0")
    connector = ConnectorComponent(
        "team-connector",
        ConnectorArgs(
            name="team-connector",
            namespace="team",
            image={"repository": "r.example/team", "tag": tag},
            replicas=2,
            pod_labels={"tier": settings.data.apply(lambda d: d["tier"])},
        ),
    )
    pulumi.export("endpoint", connector.endpoint)
    return pulumi.Output.all(connector.endpoint, connector.current_image).apply(lambda v: f"{v[0]} {v[1]}")
