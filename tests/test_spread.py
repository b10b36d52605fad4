"""``make test`` spreads the suite over processes with xdist's ``loadgroup``, which keeps a group's
tests on one process by writing the group into each test's node id. pytest 9.2 moved the node id
where xdist 3.8 no longer writes it: every group fell apart without a word, and two cluster tests
ran at once against the one control plane. This test fails when that happens again."""

from __future__ import annotations

import pytest


def test_a_spread_run_keeps_each_group_on_one_process(request: pytest.FixtureRequest) -> None:
    if not hasattr(request.config, "workerinput") or not request.config.getvalue("loadgroup"):
        pytest.skip("only a spread run (-n N --dist loadgroup, as make test) groups tests")
    assert request.node.nodeid.endswith("@tests/test_spread.py")
