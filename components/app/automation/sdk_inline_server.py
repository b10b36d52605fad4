"""The Automation API's inline language server, reporting a program's error once and telling
the program its project's folder, and each resource's stack trace cut to its source position,
in the process that runs inline programs (the main command, the benchmarks, the engine tests).

This subclasses a private part of the SDK (``pulumi.automation._server.LanguageServer``, which
``pulumi.automation._stack`` instantiates for every inline run; pulumi 3.x), sets the root
directory in the SDK's settings (``pulumi.runtime.settings.SETTINGS``, which the SDK's inline
server leaves unset where a language host sets it) and replaces the SDK's
``pulumi.runtime.resource._get_stack_trace``, and reads the secret signature
(``pulumi.runtime.rpc._special_sig_key``, ``_special_secret_sig``), kept here alone;
``tests/app/automation/test_sdk_inline_server.py`` fails when an SDK upgrade changes any of them.

Why the stack trace: for every resource the SDK records every frame below the resource's
constructor, reading each frame's source line, and the engine keeps them in state. Run inline,
below the program are some twenty frames of the Automation API's server, asyncio, gRPC and
threads: most of each resource's bytes in state, serialized by the engine again at every save,
and a large part of a no-op ``up``'s time (docs/performance.md). Inside a component
the frames of the component library (its builders, one frame each) came on top: 7 frames a child,
a sixth of a connector's state, and most of the component's cost against the same objects in a
bare component (#33; docs/performance.md). Here a resource's trace is its source position alone,
the one frame Pulumi shows: the program's line that created it, or that created the component it
belongs to (the library's own frames are passed over, ``components/app/program.py`` is the program);
no source line is read.
"""

from __future__ import annotations

import pathlib
import sys
from functools import cache
from types import FrameType
from typing import Any

import pulumi
from pulumi.automation import _server, _stack
from pulumi.runtime import resource as _resource
from pulumi.runtime import rpc as _rpc
from pulumi.runtime import settings
from pulumi.runtime.proto import source_pb2

import components

SECRET_KEY: str = _rpc._special_sig_key
"""The key that marks a secret in state and on the wire (``{SECRET_KEY: SECRET_SIG, ...}``): the
SDK's own private constants, read here alone."""
SECRET_SIG: str = _rpc._special_secret_sig

SDK_FOLDER = str(pathlib.Path(pulumi.__file__).parent) + "/"
LIBRARY_FOLDER = str(pathlib.Path(components.__file__).parent) + "/"
PROGRAM_FILE = LIBRARY_FOLDER + "program.py"


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


@cache
def _uri(filename: str) -> str | None:
    try:
        return pathlib.Path(filename).as_uri()
    except ValueError:
        return None


def _constructor_caller(frame: FrameType | None) -> FrameType | None:
    """The frame that called the resource's class: past the third ``__init__`` from the top
    (Resource, Custom/ComponentResource, the class itself), as the SDK finds it."""
    inits = 0
    while frame is not None and inits < 3:
        inits += frame.f_code.co_name == "__init__"
        frame = frame.f_back
    return frame


def _in_library(filename: str) -> bool:
    return filename.startswith(LIBRARY_FOLDER) and filename != PROGRAM_FILE


def source_position_trace() -> source_pb2.StackTrace:
    """The resource's source position as a one-frame trace: the first frame out from the
    constructor's caller that is not the component library's; none when that is the SDK's."""
    frame = _constructor_caller(sys._getframe(1))
    while frame is not None and _in_library(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename.startswith(SDK_FOLDER):
        return source_pb2.StackTrace(frames=[])
    uri = _uri(frame.f_code.co_filename)
    position = source_pb2.SourcePosition(uri=uri, line=frame.f_lineno) if uri else None
    return source_pb2.StackTrace(frames=[source_pb2.StackFrame(pc=position)])


def record_source_positions_only() -> None:
    """Resources registered by this process record their source position alone (see above)."""
    _resource._get_stack_trace = source_position_trace  # type: ignore[assignment]
