"""One stack of a fleet, in a process of its own: ``python -m components.app.command.stack_worker REPORT`` reads the run's
``RunOptions`` (JSON) from standard input, runs it as the main command runs one stack, and writes
its ``RunReport`` to REPORT; its exit code is the run's. It ends with the fleet that started it
(``FLEET_PID``): a fleet killed outright leaves no stack running."""

from __future__ import annotations

import os
import sys

from components.app.command.fleet import FLEET_PID
from components.app.command.interrupts import end_with
from components.app.command.main import run_stack
from components.app.command.runs import RunOptions, RunReport


def main(argv: list[str]) -> int:
    (report_path,) = argv
    end_with(int(os.environ[FLEET_PID]))
    options = RunOptions.from_json(sys.stdin.read())
    code, report = 1, RunReport(options.stack, options.operation)
    try:
        code, report = run_stack(options)
    finally:
        report.write(report_path)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
