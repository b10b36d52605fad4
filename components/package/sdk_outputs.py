"""Reading the Outputs the SDK's provider server makes of a consumer's inputs, in the package's
provider process: private parts of ``pulumi.output`` (pulumi 3.x), kept here alone.

``construct`` receives a consumer's inputs as Outputs whose data came with the request, so
their values are already there; the public API only offers them through ``apply``, after the
component has been built, too late to validate them first. ``Output._data`` (a future of
``_OutputData``: value, known, secret) is read at once instead, and ``Unknown`` is what the
server passes for a value unknown at preview. ``tests/test_sdk_workarounds.py`` fails when an
SDK upgrade changes either.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi.output import Unknown

__all__ = ["Resolved", "Unknown", "resolved", "unknown_output"]


@dataclass(frozen=True)
class Resolved:
    value: Any
    known: bool
    secret: bool


def resolved(output: pulumi.Output[Any]) -> Resolved | None:
    """The Output's data when it has arrived (None otherwise), without awaiting it."""
    data = output._data
    if not data.done():
        return None
    result = data.result()
    return Resolved(result.value, result.is_known, result.is_secret)


def unknown_output() -> pulumi.Output[Any]:
    """An Output that stays unknown (a value the engine knows only after ``up``)."""
    known: asyncio.Future[bool] = asyncio.Future()
    known.set_result(False)
    value: asyncio.Future[Any] = asyncio.Future()
    value.set_result(None)
    return pulumi.Output(set(), value, known)
