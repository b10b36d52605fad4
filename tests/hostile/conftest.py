"""The hostile platform's tests: every one runs with httpx and httpcore logging at DEBUG, and
no credential may appear in any line they log."""

from __future__ import annotations

import logging

import pytest

from ..support.hostile_cases import PASSWORD, TOKEN


@pytest.fixture(autouse=True)
def debug_logs(caplog):
    """httpx and httpcore at DEBUG for every test; afterwards, no credential is in any line."""
    caplog.set_level(logging.DEBUG, logger="httpx")
    caplog.set_level(logging.DEBUG, logger="httpcore")
    yield caplog
    assert TOKEN not in caplog.text and PASSWORD not in caplog.text
