"""The main command's engine settings (the engine runs in tests/engine and tests/fleet)."""

from __future__ import annotations

import pytest

from scripts.deploy import arguments, skips_checkpoints


@pytest.mark.parametrize(
    ("operation", "asked", "skipped"),
    [
        ("preview", False, True),
        ("preview", True, True),
        ("up", False, False),
        ("up", True, True),
        ("destroy", False, False),
        ("refresh", False, False),
    ],
)
def test_only_a_preview_skips_checkpoints_unasked(operation, asked, skipped):
    assert skips_checkpoints(operation, asked) is skipped


def test_skip_checkpoints_is_an_option_of_every_operation():
    assert arguments(["up", "--skip-checkpoints"]).skip_checkpoints is True
    assert arguments(["up"]).skip_checkpoints is False
