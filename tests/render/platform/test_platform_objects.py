"""Each variant the operator recorded renders here equal to its render, object by object (after
the operator's normalisation, with the differences ``tests/support/operator_platform`` names)."""

from __future__ import annotations

import pytest

from components.render.platform import render_platform

from ...support.operator_platform import by_identity, golden_objects, variant_args

RENDERED_HERE = ("minimal", "edge-internal", "utils-on", "external-messaging", "version-2190", "core-instance-id", "managed-db")


@pytest.mark.parametrize("variant", RENDERED_HERE)
def test_a_variant_renders_what_the_operator_recorded(variant):
    ours = by_identity(render_platform(variant_args(variant)))
    theirs = by_identity(golden_objects(variant))
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        assert ours[key] == expected, key
