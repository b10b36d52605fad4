"""One deadline for a whole operation: the time left, cut into every wait, and ``Expired`` once
none is left (this module's own exception, so nothing in httpx or httpcore turns it into another)."""

from __future__ import annotations

import time
from typing import Any


class Expired(Exception):
    """The operation's deadline passed; ``sent`` once the request (or some of it) went out."""

    def __init__(self, sent: bool = True) -> None:
        super().__init__()
        self.sent = sent


class Deadline:
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
