"""The high-availability profile's defaults, each component's budget and autoscaler, and its
ServiceMonitor, as the operator's ``availability.go`` and ``servicemonitor.go`` write them."""

from __future__ import annotations

import pytest

from components.render.platform import render_platform

from ...support.operator_platform import args_with, find

STATELESS = ["core", "scheduler", "auth-opa-policies", "auth", "fe-administrator", "api-gateway", "utils"]
SPREAD = {
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {
                "weight": 100,
                "podAffinityTerm": {
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"app.kubernetes.io/name": "auth"}},
                },
            }
        ]
    }
}
NODE_AFFINITY = {
    "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {"matchExpressions": []}}]}
}


def kinds(objects, kind):
    return [o for o in objects if o["kind"] == kind]


def test_without_the_profile_nothing_is_added():
    objects = render_platform(args_with(utils={"enabled": True}))
    assert kinds(objects, "PodDisruptionBudget") == [] == kinds(objects, "HorizontalPodAutoscaler")
    assert {d["spec"]["replicas"] for d in kinds(objects, "Deployment")} == {1}
    assert all("affinity" not in d["spec"]["template"]["spec"] for d in kinds(objects, "Deployment"))


def test_the_profile_gives_each_stateless_component_two_replicas_a_budget_and_a_spread():
    objects = render_platform(args_with(highAvailability={"enabled": True}, utils={"enabled": True}))
    budgets = kinds(objects, "PodDisruptionBudget")
    assert [b["metadata"]["name"] for b in budgets] == STATELESS
    auth_budget = budgets[STATELESS.index("auth")]
    assert auth_budget["spec"] == {
        "minAvailable": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "auth", "app.kubernetes.io/instance": "ilm"}},
    }
    assert auth_budget["metadata"]["labels"] == find(objects, "Deployment", "auth")["metadata"]["labels"]
    replicas = {d["metadata"]["name"]: d["spec"]["replicas"] for d in kinds(objects, "Deployment")}
    assert replicas == {**dict.fromkeys(STATELESS, 2), "core": 1}, "the variant's core sets one replica"
    assert find(objects, "Deployment", "auth")["spec"]["template"]["spec"]["affinity"] == SPREAD


@pytest.mark.parametrize(
    ("auth", "common", "replicas", "budget", "affinity"),
    [
        ({"replicas": 3}, {}, 3, {"minAvailable": 1}, SPREAD),
        ({"podDisruptionBudget": {"enabled": True, "maxUnavailable": "25%"}}, {}, 2, {"maxUnavailable": "25%"}, SPREAD),
        ({"podDisruptionBudget": {"enabled": False}}, {}, 2, None, SPREAD),
        ({"affinity": NODE_AFFINITY}, {"affinity": {"podAffinity": {}}}, 2, {"minAvailable": 1}, NODE_AFFINITY),
        ({}, {"affinity": {"podAffinity": {}}}, 2, {"minAvailable": 1}, {"podAffinity": {}}),
    ],
    ids=["own-replicas", "own-budget", "budget-off", "own-affinity", "common-affinity"],
)
def test_what_a_component_or_common_sets_wins_over_the_profile(auth, common, replicas, budget, affinity):
    objects = render_platform(args_with(highAvailability={"enabled": True}, auth=auth, common=common))
    deployment = find(objects, "Deployment", "auth")
    assert deployment["spec"]["replicas"] == replicas
    assert deployment["spec"]["template"]["spec"]["affinity"] == affinity
    found = [b["spec"] for b in kinds(objects, "PodDisruptionBudget") if b["metadata"]["name"] == "auth"]
    assert found == ([] if budget is None else [{**budget, "selector": found[0]["selector"]}])


@pytest.mark.parametrize("profile", [False, True], ids=["alone", "with-the-profile"])
def test_an_autoscaler_owns_the_replica_count(profile):
    scaling = {"minReplicas": 2, "maxReplicas": 5, "targetCPUUtilization": 70, "targetMemoryUtilization": 80}
    objects = render_platform(args_with(highAvailability={"enabled": profile}, scheduler={"autoscaling": scaling}))
    assert "replicas" not in find(objects, "Deployment", "scheduler")["spec"]
    (autoscaler,) = kinds(objects, "HorizontalPodAutoscaler")
    assert autoscaler["apiVersion"] == "autoscaling/v2" and autoscaler["metadata"]["name"] == "scheduler"
    assert autoscaler["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "scheduler"},
        "minReplicas": 2,
        "maxReplicas": 5,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {"type": "Utilization", "averageUtilization": 80}}},
        ],
    }


def test_an_autoscaler_without_targets_has_no_metrics_and_no_minimum():
    objects = render_platform(args_with(core={"autoscaling": {"maxReplicas": 3}}))
    assert find(objects, "HorizontalPodAutoscaler", "core")["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "core"},
        "maxReplicas": 3,
    }


def test_service_monitors_scrape_each_components_primary_port_and_come_last():
    monitor = {"enabled": True, "interval": "30s", "labels": {"release": "prom", "app.kubernetes.io/name": "mine"}}
    objects = render_platform(
        args_with(
            auth={"metrics": {"enabled": True, "serviceMonitor": monitor}},
            gateway={"metrics": {"enabled": True, "path": "/metrics", "serviceMonitor": {"enabled": True}}},
            scheduler={"metrics": {"enabled": True, "serviceMonitor": {"enabled": False}}},
            core={"metrics": {"enabled": False, "serviceMonitor": {"enabled": True}}},
            highAvailability={"enabled": True},
        )
    )
    monitors = kinds(objects, "ServiceMonitor")
    assert objects[-2:] == monitors and [m["metadata"]["name"] for m in monitors] == ["auth", "api-gateway"]
    auth, gateway = monitors
    assert auth["spec"]["endpoints"] == [{"port": "http", "path": "/v1/metrics", "interval": "30s"}]
    assert auth["metadata"]["labels"]["release"] == "prom" and auth["metadata"]["labels"]["app.kubernetes.io/name"] == "mine"
    assert auth["spec"]["selector"] == {"matchLabels": {"app.kubernetes.io/name": "auth", "app.kubernetes.io/instance": "ilm"}}
    assert gateway["spec"]["endpoints"] == [{"port": "consumer-http", "path": "/metrics"}]
    assert gateway["spec"]["namespaceSelector"] == {"matchNames": [gateway["metadata"]["namespace"]]}


def test_budgets_and_autoscalers_follow_every_workload_and_precede_the_network_policies():
    objects = render_platform(args_with(highAvailability={"enabled": True}, core={"autoscaling": {"maxReplicas": 3}}))
    order = [o["kind"] for o in objects]
    last_workload = max(i for i, kind in enumerate(order) if kind == "Deployment")
    first_policy = order.index("NetworkPolicy")
    assert set(order[last_workload + 2 : first_policy]) == {"PodDisruptionBudget", "HorizontalPodAutoscaler"}
    assert order[last_workload + 1] == "Service" and order[last_workload + 2 : last_workload + 4] == [
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
    ]


@pytest.mark.parametrize("autoscaling", [None, {"maxReplicas": 4}], ids=["fixed", "autoscaled"])
def test_a_stateful_set_has_the_deployments_pods_and_its_own_name_for_them(autoscaling):
    as_deployment = find(render_platform(args_with()), "Deployment", "scheduler")
    objects = render_platform(args_with(scheduler={"workloadType": "StatefulSet", "autoscaling": autoscaling}))
    assert [o for o in objects if o["kind"] == "Deployment" and o["metadata"]["name"] == "scheduler"] == []
    stateful = find(objects, "StatefulSet", "scheduler")
    assert stateful["apiVersion"] == "apps/v1" and stateful["metadata"] == as_deployment["metadata"]
    assert stateful["spec"]["template"] == as_deployment["spec"]["template"]
    assert stateful["spec"]["serviceName"] == "scheduler" and "strategy" not in stateful["spec"]
    if autoscaling is None:
        assert stateful["spec"]["replicas"] == 1
    else:
        assert "replicas" not in stateful["spec"]
        assert find(objects, "HorizontalPodAutoscaler", "scheduler")["spec"]["scaleTargetRef"]["kind"] == "StatefulSet"
