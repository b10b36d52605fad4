"""The rule the operator guards every managed engine's version with (``MajorUpgradeNeedsAck``):
a change to a higher major version of what runs now waits for ``upgradeAcknowledged``; a first
deploy, a minor or patch change and a version either side cannot read are let through."""

from __future__ import annotations

__all__ = ["held_version"]


def _major(version: str) -> int | None:
    head = version.replace("-", ".").split(".")[0]
    return int(head) if head.isdigit() else None


def held_version(asked: str | None, running: str | None, acknowledged: bool) -> str | None:
    """The running version to keep instead of ``asked``, or None to apply ``asked``."""
    if not asked or running is None or acknowledged:
        return None
    wanted, now = _major(asked), _major(running)
    return running if wanted is not None and now is not None and wanted > now else None
