"""The HTTP client's settings, every default in one place (as httpx's ``_config.py``): the
retry schedule (from ``initial_seconds``, doubling to ``max_seconds``, within ``deadline_seconds``
in all, or the wait a server asks for), the one deadline of an operation, each attempt's
timeout, and the caps on what an answer may be. The registration's inputs take their defaults
from here."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT", "RetryPolicy"]

ATTEMPT_TIMEOUT = 30.0
"""Seconds one attempt may take to connect, send, or wait between two chunks of the answer."""
MAX_BODY = 1024 * 1024
"""Bytes an answer may hold once decoded (a compressed answer is inflated only up to that)."""
MAX_DEPTH = 64
"""Levels of nesting an answer's JSON may have."""


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
