"""``registration.attributes``: both forms of an attribute, and the platform's."""

from __future__ import annotations

import pytest

from components.registration.attributes import CONTENT_RULE, content_problem, platform_attributes, platform_content


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("X.509 certificate compliance provider", [{"data": "X.509 certificate compliance provider"}]),
        (42, [{"data": 42}]),
        (False, [{"data": False}]),
        ({"maxItems": 3}, [{"data": {"maxItems": 3}}]),
        ({"data": "x", "reference": "X"}, [{"data": "x", "reference": "X"}]),
        ([{"data": "a"}, {"data": {"b": 1}, "reference": "B"}], [{"data": "a"}, {"data": {"b": 1}, "reference": "B"}]),
        ([], []),
        (None, []),
    ],
)
def test_what_the_platform_reads(content, sent):
    assert content_problem(content) is None
    assert platform_content(content) == sent


@pytest.mark.parametrize("content", [["a"], [{"reference": "r"}], [{"data": 1}, 2], ({"x"},)])
def test_anything_else_is_refused(content):
    assert content_problem(content) == CONTENT_RULE


def test_attributes_keep_their_names_and_order():
    given = [{"name": "description", "content": "d"}, {"name": "connectorType", "content": [{"data": "c"}]}]
    assert platform_attributes(given) == [
        {"name": "description", "content": [{"data": "d"}]},
        {"name": "connectorType", "content": [{"data": "c"}]},
    ]
    assert platform_attributes(None) == []
