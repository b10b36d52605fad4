"""P4, on the local cluster: from a Deployment first seen Available to its registration request."""

from __future__ import annotations

import json
import pathlib
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .common import component_program, connectors, engine_environment, inline_stack, machine, registering, write_result


@dataclass
class Timeline:
    """When each connector's Deployment was Available, done by the engine, rolled out, registered."""

    available: dict[str, float] = field(default_factory=dict)
    deployed: dict[str, float] = field(default_factory=dict)
    """When the engine reports each Deployment's create step done (its event reaches this process)."""
    rolled_out: dict[str, float] = field(default_factory=dict)
    """When the rollout is complete (Progressing: NewReplicaSetAvailable), what Pulumi's wait needs."""
    registered: dict[str, float] = field(default_factory=dict)


def watch_deployments(api: Any, timeline: Timeline, stop: threading.Event) -> None:
    from kubernetes import client, watch

    stream = watch.Watch()
    for event in stream.stream(client.AppsV1Api(api).list_namespaced_deployment, "bench", timeout_seconds=600):
        deployment = event["object"]
        conditions = deployment.status.conditions or []
        if any(c.type == "Available" and c.status == "True" for c in conditions):
            timeline.available.setdefault(deployment.metadata.name, time.time())
        if any(c.type == "Progressing" and c.reason == "NewReplicaSetAvailable" for c in conditions):
            timeline.rolled_out.setdefault(deployment.metadata.name, time.time())
        if stop.is_set():
            stream.stop()


def deploy_registering(cluster: Any, folder: pathlib.Path, env: dict[str, str], n: int, timeline: Timeline) -> None:
    from pulumi import automation as auto

    from tests.support.platform_double import platform_double

    with platform_double() as double:
        stack = inline_stack("bench-ready", component_program, folder / "stack", env)
        stack.set_config("connectors:kubeconfig", auto.ConfigValue(str(cluster.kubeconfig)))
        stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(registering(connectors(n), double.url))))

        def step_done(event: Any) -> None:
            outputs = event.res_outputs_event
            if outputs is not None and outputs.metadata.type == "kubernetes:apps/v1:Deployment":
                timeline.deployed[outputs.metadata.urn.rsplit("::", 1)[-1]] = time.time()

        stack.up(on_event=step_done)
        timeline.registered = {
            body["name"]: t.timestamp() for body, t in zip(double.requests, double.register_times, strict=True)
        }
        stack.destroy()


def summary_of(timeline: Timeline, n: int) -> dict[str, Any]:
    registered, available = timeline.registered, timeline.available
    delays = sorted(registered[name] - available[name] for name in registered)
    after_rollout = sorted(registered[name] - timeline.rolled_out[name] for name in registered if name in timeline.rolled_out)
    return {
        "n": n,
        "after_rollout_complete_s": [round(d, 3) for d in after_rollout],
        "median_s": round(statistics.median(delays), 3),
        "max_s": round(max(delays), 3),
        "delays_s": [round(d, 3) for d in delays],
        "timeline": {
            name: {
                "available": round(available[name], 3),
                "deployment_step_done": round(timeline.deployed[name], 3) if name in timeline.deployed else None,
                "registered": round(registered[name], 3),
            }
            for name in sorted(registered)
        },
        "machine": machine(),
    }


def ready_latency_benchmark(out: pathlib.Path, n: int = 10) -> int:
    from kubernetes import client

    from tests.support.local_cluster import local_cluster

    env = engine_environment()
    timeline, stop = Timeline(), threading.Event()
    with tempfile.TemporaryDirectory(prefix="bench-p4-") as folder, local_cluster(pathlib.Path(folder) / "cluster") as cluster:
        api = cluster.api()
        client.CoreV1Api(api).create_namespace({"metadata": {"name": "bench"}})
        threading.Thread(target=watch_deployments, args=(api, timeline, stop), daemon=True).start()
        try:
            deploy_registering(cluster, pathlib.Path(folder), env, n, timeline)
        finally:
            stop.set()
    summary = summary_of(timeline, n)
    print(f"P4: Available to registration over {n} connectors: median {summary['median_s']} s, max {summary['max_s']} s")
    write_result(out, "ready-latency.json", summary)
    return 0
