"""Many stacks at once: ``connectors <operation> --stacks PATTERN --parallel N``.

Each stack runs in a process of its own (``stack_worker.py``: the run's ``RunOptions`` in, its
``RunReport`` out) against the same state backend (``PULUMI_BACKEND_URL``, or as the main command chooses it): a
failure in one stack never stops the others, and the backend's per-stack lock keeps two runs
off one stack. Progress is printed
as stacks start and end; at the end a table (stack, result, changes, duration, registrations)
and a non-zero exit when any stack failed. A failed stack's last output lines are printed.
A SIGTERM or Ctrl-C is passed on to every running stack (each cancels its engine gracefully);
the stacks not started yet are not run.
"""

from __future__ import annotations

import fnmatch
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from components.app.automation.pulumi_cli import CLONE
from components.app.command.runs import UNCHANGED, RunOptions, RunReport
from components.app.stack_files import config_folder, stack_names

WORKER = [sys.executable, "-P", "-m", "components.app.command.stack_worker"]
"""``-P``: the folder it starts in is not searched first (a project's own ``components/`` is not the library)."""
TAIL_LINES = 25
FLEET_PID = "CONNECTORS_FLEET_PID"
"""The fleet's process id, given to each worker, which ends when that process does."""


def worker_env() -> dict[str, str]:
    """This process's environment, with the library it runs importable by the worker wherever it
    was loaded from (a clone, or an installed distribution)."""
    path = os.pathsep.join(p for p in [str(CLONE or ""), os.environ.get("PYTHONPATH", "")] if p)
    return {**os.environ, "PYTHONPATH": path, FLEET_PID: str(os.getpid())}


@dataclass
class StackRun:
    """A stack's run as the fleet saw it: its report, and the end of its output when it failed."""

    report: RunReport
    error: str = ""


def matching_stacks(work_dir: pathlib.Path, pattern: str, shard: tuple[int, int] | None = None) -> list[str]:
    """The stacks whose settings file matches ``pattern`` (a shell pattern), in name order;
    with ``shard`` (K, N), every N-th of them from the K-th: N runners given 1/N .. N/N split
    the stacks between them, each stack to exactly one."""
    found = [name for name in stack_names(work_dir) if fnmatch.fnmatchcase(name, pattern)]
    if shard is None:
        return found
    k, n = shard
    return found[k - 1 :: n]


def changes_text(changes: dict[str, int]) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(changes.items())) or "none"


class Workers:
    """One fleet run's stack processes: a SIGTERM or Ctrl-C to the fleet reaches each as a
    SIGTERM (each cancels its engine gracefully), and no new stack starts after it."""

    def __init__(self) -> None:
        self.running: set[subprocess.Popen[bytes]] = set()
        self.stopped = False
        self.lock = threading.Lock()

    def start(self, command: list[str], given: str, out: Any) -> subprocess.Popen[bytes] | None:
        """``command`` started with ``given`` on its standard input, its output to ``out``."""
        with self.lock:
            if self.stopped:
                return None
            # A session of its own: a terminal's Ctrl-C reaches the fleet alone, which passes one
            # SIGTERM on (a second signal would make a stack kill its engine outright).
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=worker_env()
            )
            self.running.add(process)
        assert process.stdin is not None
        process.stdin.write(given.encode())
        process.stdin.close()
        return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self.lock:
            self.running.discard(process)

    def stop(self, _signum: int = 0, _frame: object = None) -> None:
        with self.lock:
            self.stopped = True
            for process in self.running:
                process.send_signal(signal.SIGTERM)


def run_one(options: RunOptions, log_dir: pathlib.Path, workers: Workers) -> StackRun:
    """``options`` (one stack's) in a worker process; its report, or a failed one."""
    report_path, log = log_dir / f"{options.stack}.json", log_dir / f"{options.stack}.log"
    start = time.monotonic()
    with open(log, "w") as out:
        process = workers.start([*WORKER, str(report_path)], options.to_json(), out)
        if process is None:
            return StackRun(RunReport(options.stack, options.operation, result="not run"))
        code = process.wait()
        workers.done(process)
    report = RunReport.read(report_path) if report_path.exists() else RunReport(options.stack, options.operation)
    report.duration = time.monotonic() - start
    run = StackRun(report)
    if code != 0:
        report.result = "failed"
        run.error = "\n".join(log.read_text().splitlines()[-TAIL_LINES:])
    return run


def run_fleet(options: RunOptions, stacks: list[str], parallel: int) -> int:
    """``options`` on every stack of ``stacks``, ``parallel`` at a time (see the module)."""
    lock = threading.Lock()
    done: list[StackRun] = []
    workers = Workers()
    started = time.monotonic()

    def say(line: str) -> None:
        with lock:
            print(line, flush=True)

    def one(stack: str) -> StackRun:
        say(f"[{len(done)}/{len(stacks)} done] {stack}: {options.operation} started")
        run = run_one(options.for_stack(stack), log_dir, workers)
        with lock:
            done.append(run)
        report = run.report
        changes = changes_text(report.changes)
        say(f"[{len(done)}/{len(stacks)} done] {stack}: {report.result} in {report.duration:.1f} s ({changes})")
        if run.error:
            say("\n".join(f"    {stack} | {line}" for line in run.error.splitlines()))
        return run

    previous = {sig: signal.signal(sig, workers.stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        with tempfile.TemporaryDirectory(prefix="fleet-") as folder:
            log_dir = pathlib.Path(folder)
            say(f"{options.operation} on {len(stacks)} stacks, {parallel} at a time")
            with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
                runs = list(pool.map(one, stacks))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print_summary([run.report for run in runs], time.monotonic() - started, parallel)
    return 0 if all(run.report.succeeded() for run in runs) else 1


def run_matching(options: RunOptions, pattern: str, parallel: int, shard: tuple[int, int] | None) -> int:
    """The fleet over the stacks matching ``pattern`` (and falling to ``shard``)."""
    work_dir = pathlib.Path(options.work_dir).resolve()
    stacks = matching_stacks(work_dir, pattern, shard)
    if not stacks and shard and matching_stacks(work_dir, pattern):
        print(f"shard {shard[0]}/{shard[1]}: no stack of {pattern!r} falls to it")
        return 0
    if not stacks:
        print(f"no stack in {config_folder(work_dir)} matches {pattern!r}", file=sys.stderr)
        return 2
    return run_fleet(options, stacks, parallel)


def print_summary(runs: list[RunReport], elapsed: float, parallel: int) -> None:
    rows = [("stack", "result", "changes", "duration", "registrations")]
    rows += [(r.stack, r.result, changes_text(r.changes), f"{r.duration:.1f} s", str(r.registrations)) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print()
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    failed = sum(not r.succeeded() for r in runs)
    unchanged = sum(r.result == UNCHANGED for r in runs)
    print(
        f"{len(runs)} stacks: {len(runs) - failed - unchanged} succeeded, {unchanged} unchanged (not run), {failed} failed, "
        f"in {elapsed:.1f} s ({parallel} at a time)"
    )
