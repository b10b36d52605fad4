"""Workarounds for the SDK's dynamic-provider host (``python -m pulumi.dynamic``), the process
the engine starts to run the registrations. Nothing here touches any other process.

They use private parts of that host module (pulumi 3.x, ``pulumi/dynamic/__main__.py``), so
``tests/registration/test_provider_host.py`` checks that those parts are still there: it fails when an
SDK upgrade changes them, instead of the workaround silently doing nothing.

- **Threads.** The host serves the engine's calls on ``futures.ThreadPoolExecutor(max_workers=4)``,
  so at most 4 registrations were in flight however wide the engine's ``--parallel`` (each
  waits on the platform's answer; docs/performance.md, P4).
  The pool starts a thread per call as calls arrive, up to its ``_max_workers``: raised here.
- **Unknowns.** At preview the host hands ``check`` the values not known yet as
  ``pulumi.output.Unknown`` (it deserializes with ``keep_unknowns``), at any depth; the input
  checks skip a value that holds one (``holds_unknown``). The package's server does the same.
- **Tracebacks.** A provider error reaches the engine as ``traceback.format_exc()``. For a
  ``RegistrationError`` (a status, a uuid, what to do) the message alone is sent, as the engine
  prints a program's errors; any other exception keeps its traceback: that is a bug to report.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

from pulumi.output import Unknown

HOST_MODULE = "pulumi.dynamic.__main__"
THREADS = 32
"""Registrations served at once by one provider process."""


def holds_unknown(value: Any) -> bool:
    """Whether ``value`` is, or holds, a value the engine does not know yet (at preview)."""
    if isinstance(value, Unknown):
        return True
    if isinstance(value, dict):
        return any(holds_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(holds_unknown(v) for v in value)
    return False


def running_host() -> ModuleType | None:
    """The host's module when this process is the dynamic-provider host, else None."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if main is None or spec is None or spec.name != HOST_MODULE:
        return None
    return main


def widen_thread_pool(threads: int = THREADS) -> int:
    """Raises every thread pool of this process to ``threads``; how many it found."""
    import gc
    from concurrent.futures import ThreadPoolExecutor

    pools = [o for o in gc.get_objects() if isinstance(o, ThreadPoolExecutor)]
    for pool in pools:
        pool._max_workers = max(pool._max_workers, threads)
    return len(pools)


class _MessagesForPlatformErrors:
    """Stands in for the ``traceback`` module in the host: ``format_exc`` gives a
    ``RegistrationError``'s message alone."""

    def __init__(self, original: ModuleType) -> None:
        self._original = original

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)

    def format_exc(self, *args: Any, **kwargs: Any) -> str:
        from components.registration.errors import RegistrationError

        error = sys.exc_info()[1]
        if isinstance(error, RegistrationError):
            return str(error)
        return self._original.format_exc(*args, **kwargs)


def report_platform_errors_without_tracebacks(host: ModuleType) -> bool:
    """Swaps the host's ``traceback``; False when the host has none (the SDK changed)."""
    original = getattr(host, "traceback", None)
    if original is None:
        return False
    if not isinstance(original, _MessagesForPlatformErrors):
        host.traceback = _MessagesForPlatformErrors(original)  # type: ignore[attr-defined]
    return True


def adapt() -> None:
    """Both workarounds, when this process is the host; nothing anywhere else. Called by the
    provider's ``configure``, which the host calls once it has loaded the provider."""
    host = running_host()
    if host is None:
        return
    report_platform_errors_without_tracebacks(host)
    widen_thread_pool()
