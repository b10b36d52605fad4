"""One stack of a fleet, in a process of its own: ``stack_worker.py REPORT`` reads the run's
``RunOptions`` (JSON) from standard input, runs it as ``deploy.py`` runs one stack, and writes
its ``RunReport`` to REPORT; its exit code is the run's."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scripts.deploy import run_stack  # noqa: E402
from scripts.runs import RunOptions, RunReport  # noqa: E402


def main(argv: list[str]) -> int:
    (report_path,) = argv
    options = RunOptions.from_json(sys.stdin.read())
    code, report = 1, RunReport(options.stack, options.operation)
    try:
        code, report = run_stack(options)
    finally:
        report.write(report_path)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
