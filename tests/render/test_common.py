"""``render.common``: the assembly both kinds share, fed the blocks each kind hands over."""

from __future__ import annotations

import pytest

from components.args.blocks import ImageBase, NetworkPolicyArgs, PodDisruptionBudgetArgs, ProbeArgs, ServiceMonitorArgs
from components.render.common import SharedBlocks, image_reference, optional_kinds, probe_from, with_extra_labels
from components.render.workload import Probe

DEFAULT = Probe("/h", initial_delay_seconds=1)


@pytest.mark.parametrize(
    ("image", "expected"),
    [
        ({"repository": "r.example/a", "tag": "1"}, "r.example/a:1"),
        (
            {"registry": "hub.example.com", "repository": "ilm", "name": "proxy", "tag": "1.0.0"},
            "hub.example.com/ilm/proxy:1.0.0",
        ),
        ({"repository": "r/a", "tag": "1", "digest": "sha256:" + "a" * 64}, "r/a@sha256:" + "a" * 64),
        ({"repository": "r/a", "tag": "", "digest": "sha256:" + "b" * 64}, "r/a@sha256:" + "b" * 64),
    ],
)
def test_image_reference(image, expected):
    assert image_reference(ImageBase.model_validate(image)) == expected


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, DEFAULT),
        ({"path": ""}, None),
        ({"path": "/x", "periodSeconds": 5}, Probe("/x", None, 5, None)),
    ],
)
def test_probe_from(given, expected):
    assert probe_from(None if given is None else ProbeArgs.model_validate(given), DEFAULT) == expected


def blocks(pdb=None, monitor=None, policy=True) -> SharedBlocks:
    return SharedBlocks(
        None if pdb is None else PodDisruptionBudgetArgs(enabled=pdb),
        None if monitor is None else ServiceMonitorArgs(enabled=monitor),
        "/m",
        NetworkPolicyArgs(enabled=policy),
    )


@pytest.mark.parametrize(
    ("blocks_given", "ingress", "expected"),
    [
        (blocks(), False, ("network_policy",)),
        (blocks(policy=False), False, ()),
        (blocks(pdb=False, monitor=False), False, ("network_policy",)),
        (blocks(pdb=True, monitor=True), True, ("pod_disruption_budget", "service_monitor", "network_policy", "ingress")),
        (blocks(monitor=True, policy=False), True, ("service_monitor", "ingress")),
    ],
)
def test_optional_kinds_in_creation_order(blocks_given, ingress, expected):
    assert optional_kinds(blocks_given, ingress) == expected


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({}, {"app": "ours"}),
        ({"team": "a"}, {"team": "a", "app": "ours"}),
        ({"app": "theirs"}, {"app": "ours"}),
    ],
)
def test_entry_labels_under_ours(extra, expected):
    assert with_extra_labels({"metadata": {"labels": {"app": "ours"}}}, extra)["metadata"]["labels"] == expected
