"""When to try again: the waits between attempts (from ``initial_seconds``, doubling to
``max_seconds``, within ``deadline_seconds`` in all) and the waits a platform asks for.

These defaults are the registration's (its inputs' table reads them from here)."""

from __future__ import annotations

from dataclasses import dataclass
from email.utils import parsedate_to_datetime


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
