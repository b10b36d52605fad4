"""``render.objects``: the kinds in creation order, and the checksum stamped on a copy."""

from __future__ import annotations

import copy

import pytest

from components.render.objects import KINDS, OPTIONAL_KINDS, REQUIRED_KINDS, RenderedWorkload, stamp_checksum


def rendered(**optional: dict) -> RenderedWorkload:
    parts = {kind: {"kind": kind} for kind in REQUIRED_KINDS}
    return RenderedWorkload(
        **parts,
        **{kind: optional.get(kind) for kind in OPTIONAL_KINDS},
        endpoint="http://e",
        current_image="i:1",
    )


@pytest.mark.parametrize(
    ("optional", "expected"),
    [
        ({}, ["service_account", "service", "deployment"]),
        ({"ingress": {"kind": "i"}}, ["service_account", "service", "deployment", "ingress"]),
        (
            {"network_policy": {}, "pod_disruption_budget": {}},
            ["service_account", "service", "deployment", "pod_disruption_budget", "network_policy"],
        ),
    ],
)
def test_by_kind_in_creation_order_without_the_disabled(optional, expected):
    assert list(rendered(**optional).by_kind()) == expected


def test_every_kind_once_required_first():
    assert KINDS[:3] == REQUIRED_KINDS and len(set(KINDS)) == len(KINDS) == 7


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, {"otilm.com/config-checksum": "abc"}),
        ({"a": "1"}, {"a": "1", "otilm.com/config-checksum": "abc"}),
        ({"otilm.com/config-checksum": "old"}, {"otilm.com/config-checksum": "abc"}),
    ],
)
def test_stamp_checksum_on_a_copy(annotations, expected):
    metadata = {"labels": {"x": "y"}} | ({"annotations": annotations} if annotations is not None else {})
    deployment = {"kind": "Deployment", "spec": {"replicas": 1, "template": {"metadata": metadata, "spec": {}}}}
    before = copy.deepcopy(deployment)
    stamped = stamp_checksum(deployment, "abc")
    assert stamped["spec"]["template"]["metadata"]["annotations"] == expected
    assert stamped["spec"]["template"]["metadata"]["labels"] == {"x": "y"}
    assert deployment == before
