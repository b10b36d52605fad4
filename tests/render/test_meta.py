"""``render.meta``: the names, labels and metadata every object carries."""

from __future__ import annotations

import pytest

from components.render.meta import labels, merged, object_meta, selector_labels


@pytest.mark.parametrize(
    ("name", "component", "expected"),
    [
        (
            "x",
            "connector",
            {"app.kubernetes.io/name": "x", "app.kubernetes.io/component": "connector", "otilm.com/connector": "x"},
        ),
        ("p", "proxy", {"app.kubernetes.io/name": "p", "app.kubernetes.io/component": "proxy", "otilm.com/proxy": "p"}),
    ],
)
def test_selector_labels_are_the_operators(name, component, expected):
    assert selector_labels(name, component) == expected


@pytest.mark.parametrize(
    ("managed_by", "expected"),
    [(None, "pulumi-connector"), ("ilm-operator", "ilm-operator")],
)
def test_labels_add_who_manages_the_object(managed_by, expected):
    given = labels("x") if managed_by is None else labels("x", "connector", managed_by)
    assert given == {**selector_labels("x"), "app.kubernetes.io/managed-by": expected}


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, {"name": "n", "namespace": "ns", "labels": {"a": "1"}}),
        ({}, {"name": "n", "namespace": "ns", "labels": {"a": "1"}}),
        ({"b": "2"}, {"name": "n", "namespace": "ns", "labels": {"a": "1"}, "annotations": {"b": "2"}}),
    ],
)
def test_object_meta(annotations, expected):
    given = {"a": "1"}
    meta = object_meta("n", "ns", given, annotations)
    assert meta == expected
    assert meta["labels"] is not given


@pytest.mark.parametrize(
    ("user", "ours", "expected"),
    [
        ({"a": "u"}, {"b": "o"}, {"a": "u", "b": "o"}),
        ({"a": "u"}, {"a": "o"}, {"a": "o"}),
        ({}, {}, {}),
    ],
)
def test_ours_win_a_clash(user, ours, expected):
    assert merged(user, ours) == expected
