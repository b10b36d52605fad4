"""The Automation API's inline language server, reporting a program's error once and telling
the program its project's folder, in the process that runs inline programs
(``scripts/deploy.py``, the benchmarks, the engine tests).

This subclasses a private part of the SDK (``pulumi.automation._server.LanguageServer``, which
``pulumi.automation._stack`` instantiates for every inline run; pulumi 3.x) and sets the root
directory in the SDK's settings (``pulumi.runtime.settings.SETTINGS``, which the SDK's inline
server leaves unset where a language host sets it), kept here alone;
``tests/test_sdk_workarounds.py`` fails when an SDK upgrade changes either.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.automation import _server, _stack
from pulumi.runtime import settings


class _ReportOnceLanguageServer(_server.LanguageServer):
    """The Automation API's inline language server, reporting a program's ``RunError`` once and
    giving ``pulumi.get_root_directory()`` the workspace's folder (where the stack files are),
    as a language host gives it the project's.

    The SDK's server logs a ``RunError`` and also returns it as the run's error, so the engine
    prints it a second time as "an unhandled error occurred". The Python language host of a
    normal install logs it once and bails; this does the same: the message is logged once by
    the SDK, and the run ends with ``bail`` (failed, nothing more to print)."""

    def Run(self, request: Any, context: Any) -> Any:
        program = self.program
        reported: list[bool] = []

        def watched() -> Any:
            if not pulumi.get_root_directory():
                settings.SETTINGS.root_directory = request.info.root_directory or request.pwd
            try:
                return program()
            except pulumi.RunError:
                reported.append(True)
                raise

        self.program = watched
        try:
            result = super().Run(request, context)
        finally:
            self.program = program
        if reported and result.error:
            result.error = ""
            result.bail = True
        return result


def report_run_errors_once() -> None:
    """Inline programs run by this process report a configuration error once, as ``pulumi up`` does."""
    _stack.LanguageServer = _ReportOnceLanguageServer  # type: ignore[misc]
