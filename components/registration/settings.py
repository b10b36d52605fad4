"""The platform client's settings, every default in one place (as httpx's ``_config.py``): the
retry schedule (from ``initial_seconds``, doubling to ``max_seconds``, within ``deadline_seconds``
in all, or the wait a platform asks for), the one deadline of an operation, each attempt's
timeout, and the caps on what an answer may be. The registration's inputs take their defaults
from here."""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

ATTEMPT_TIMEOUT = 30.0
"""Seconds one attempt may take to connect, send, or wait between two chunks of the answer."""
MAX_BODY = 1024 * 1024
"""Bytes an answer may hold once decoded (a compressed answer is inflated only up to that)."""
MAX_DEPTH = 64
"""Levels of nesting an answer's JSON may have."""
MAX_PAGES = 100
"""Pages of a listing read at most."""
MAX_RECORDS = 10_000
"""Records of a listing read at most."""
PAGE_SIZE = 100
"""Records asked for per page of a listing."""


@dataclass(frozen=True)
class RetryPolicy:
    initial_seconds: float = 5
    max_seconds: float = 300
    deadline_seconds: float = 600

    def delays(self) -> list[float]:
        """The waits between attempts, doubling to the ceiling, within the deadline."""
        out, delay, total = [], self.initial_seconds, 0.0
        while total + delay <= self.deadline_seconds:
            out.append(delay)
            total += delay
            delay = min(delay * 2, self.max_seconds)
        return out


DEFAULT = RetryPolicy()


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds a ``Retry-After`` asks for (delay-seconds or an HTTP date), None when absent or unreadable."""
    if not value or len(value) > 64 or not value.isascii():
        return None
    if value.strip().isdecimal():
        return float(value.strip())
    try:
        return max(parsedate_to_datetime(value).timestamp() - now, 0.0)
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


class Expired(Exception):
    """The operation's deadline passed; ``sent`` once the request (or some of it) went out."""

    def __init__(self, sent: bool = True) -> None:
        super().__init__()
        self.sent = sent


class Deadline:
    """One deadline for a whole operation: the time left, cut into every wait; ``Expired`` (this
    module's own exception, so nothing in httpx or httpcore turns it into another) once none is left."""

    def __init__(self, seconds: float, clock: Any = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds

    def remaining(self) -> float:
        return self.at - self.clock()

    def bound(self, timeout: float | None, sent: bool = True) -> float:
        """``timeout`` cut to the time left; ``Expired`` when none is."""
        left = self.remaining()
        if left <= 0:
            raise Expired(sent)
        return left if timeout is None else min(timeout, left)
