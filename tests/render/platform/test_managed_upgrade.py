"""The operator's rule for every managed engine: only a higher major of what runs now waits for
``upgradeAcknowledged``; what cannot be read either side is let through."""

from __future__ import annotations

import pytest

from components.render.platform.managed_upgrade import held_version


@pytest.mark.parametrize(
    ("asked", "running", "acknowledged", "held"),
    [
        ("18", "17", False, "17"),
        ("18", "17", True, None),
        ("4.3.1", "3.13", False, "3.13"),
        ("4.3.1", "4.0", False, None),  # a minor change
        ("3.13", "4.0", False, None),  # a downgrade is not this guard's
        ("4.3.1", None, False, None),  # a first deploy
        ("", "3.13", False, None),  # nothing asked: the upstream operator's default
        ("4-rc", "3", False, "3"),
        ("latest", "3.13", False, None),  # unreadable
    ],
)
def test_only_an_unacknowledged_higher_major_keeps_the_running_version(asked, running, acknowledged, held):
    assert held_version(asked, running, acknowledged) == held
