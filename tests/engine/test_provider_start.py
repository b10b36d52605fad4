"""The registrations' provider process is started at the start of the program, not when the
first connector is Ready (README, Performance, P4)."""

from __future__ import annotations

import pathlib
import sys

import pytest

from components.registration.resource import start_provider_early


def nothing() -> None:
    """A program that creates nothing and calls nothing."""


@pytest.mark.parametrize(("program", "started"), [(nothing, False), (start_provider_early, True)], ids=["nothing", "start"])
def test_the_start_call_alone_starts_the_registrations_provider(make_stack, tmp_path, program, started):
    """The provider's launcher runs ``$PULUMI_PYTHON_CMD -m pulumi.dynamic``: a python that
    leaves a stamp shows whether the engine started it."""
    stack = make_stack([], name=f"start-{started}", program=program)
    stamp = tmp_path / f"started-{started}"
    python = tmp_path / f"python-{started}"
    python.write_text(f'#!/bin/sh\necho started >> "{stamp}"\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    stack.stack.workspace.env_vars["PULUMI_PYTHON_CMD"] = str(python)

    result = stack.up()

    assert result.summary.result == "succeeded"
    assert pathlib.Path(stamp).exists() is started
    assert "error" not in "\n".join(stack.output).lower()
