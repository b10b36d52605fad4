"""A tool or server a test needs, missing: skipped with the reason, or failed under ``CI=true``."""

from __future__ import annotations

import os
import pathlib
from typing import NoReturn

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def unavailable(what: str, error: object) -> NoReturn:
    """A tool or server a test needs is missing: a skip with the reason, a failure under ``CI=true``."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} cannot be skipped in CI: {error}")
    pytest.skip(str(error))
