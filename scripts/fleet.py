"""Many stacks at once: ``deploy.py <operation> --stacks PATTERN --parallel N``.

Each stack runs in a process of its own (``deploy.py <operation> --stack S --report FILE``)
against the same state backend (``PULUMI_BACKEND_URL``, or as ``deploy.py`` chooses it): a
failure in one stack never stops the others, and the backend's per-stack lock keeps two runs
off one stack. Progress is printed
as stacks start and end; at the end a table (stack, result, changes, duration, registrations)
and a non-zero exit when any stack failed. A failed stack's last output lines are printed.
A SIGTERM or Ctrl-C is passed on to every running stack (each cancels its engine gracefully);
the stacks not started yet are not run.
"""

from __future__ import annotations

import fnmatch
import json
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

DEPLOY = pathlib.Path(__file__).resolve().parent / "deploy.py"
TAIL_LINES = 25


@dataclass
class StackRun:
    stack: str
    result: str = "not run"
    changes: dict[str, int] = field(default_factory=dict)
    duration: float = 0.0
    registrations: int = 0
    error: str = ""


def matching_stacks(work_dir: pathlib.Path, pattern: str, shard: tuple[int, int] | None = None) -> list[str]:
    """The stacks whose config file ``stacks/Pulumi.<name>.yaml`` matches ``pattern`` (a shell
    pattern), in name order; with ``shard`` (K, N), every N-th of them from the K-th: N runners
    given 1/N .. N/N split the stacks between them, each stack to exactly one."""
    names = (p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (work_dir / "stacks").glob("Pulumi.*.yaml"))
    found = sorted(name for name in names if fnmatch.fnmatchcase(name, pattern))
    if shard is None:
        return found
    k, n = shard
    return found[k - 1 :: n]


def changes_text(changes: dict[str, int]) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(changes.items())) or "none"


class Workers:
    """The running stacks' processes: a SIGTERM or Ctrl-C to the fleet reaches each as a SIGTERM
    (each cancels its engine gracefully), and no new stack starts after it."""

    def __init__(self) -> None:
        self.running: set[subprocess.Popen[bytes]] = set()
        self.stopped = False
        self.lock = threading.Lock()

    def start(self, command: list[str], out: Any) -> subprocess.Popen[bytes] | None:
        with self.lock:
            if self.stopped:
                return None
            # A session of its own: a terminal's Ctrl-C reaches the fleet alone, which passes one
            # SIGTERM on (a second signal would make a stack kill its engine outright).
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            self.running.add(process)
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        with self.lock:
            self.running.discard(process)

    def stop(self, _signum: int = 0, _frame: object = None) -> None:
        with self.lock:
            self.stopped = True
            for process in self.running:
                process.send_signal(signal.SIGTERM)


WORKERS = Workers()


def run_one(operation: str, stack: str, work_dir: pathlib.Path, log_dir: pathlib.Path, extra: list[str]) -> StackRun:
    report, log = log_dir / f"{stack}.json", log_dir / f"{stack}.log"
    command = [sys.executable, str(DEPLOY), operation, "--stack", stack, "--work-dir", str(work_dir), "--report", str(report)]
    start = time.monotonic()
    with open(log, "w") as out:
        process = WORKERS.start([*command, *extra], out)
        if process is None:
            return StackRun(stack, result="not run")
        code = process.wait()
        WORKERS.done(process)
    run = StackRun(stack, duration=time.monotonic() - start)
    if report.exists():
        data: dict[str, Any] = json.loads(report.read_text())
        run.result, run.changes, run.registrations = data["result"], data["changes"], data["registrations"]
    else:
        run.result = "failed"
    if code != 0:
        run.result = "failed"
        run.error = "\n".join(log.read_text().splitlines()[-TAIL_LINES:])
    return run


def run_fleet(operation: str, stacks: list[str], parallel: int, work_dir: pathlib.Path, extra: list[str]) -> int:
    lock = threading.Lock()
    done: list[StackRun] = []
    started = time.monotonic()

    def say(line: str) -> None:
        with lock:
            print(line, flush=True)

    def one(stack: str) -> StackRun:
        say(f"[{len(done)}/{len(stacks)} done] {stack}: {operation} started")
        run = run_one(operation, stack, work_dir, log_dir, extra)
        with lock:
            done.append(run)
        say(f"[{len(done)}/{len(stacks)} done] {stack}: {run.result} in {run.duration:.1f} s ({changes_text(run.changes)})")
        if run.error:
            say("\n".join(f"    {stack} | {line}" for line in run.error.splitlines()))
        return run

    previous = {sig: signal.signal(sig, WORKERS.stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        with tempfile.TemporaryDirectory(prefix="fleet-") as folder:
            log_dir = pathlib.Path(folder)
            say(f"{operation} on {len(stacks)} stacks, {parallel} at a time")
            with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
                runs = list(pool.map(one, stacks))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print_summary(runs, time.monotonic() - started, parallel)
    return 0 if all(r.result == "succeeded" for r in runs) else 1


def print_summary(runs: list[StackRun], elapsed: float, parallel: int) -> None:
    rows = [("stack", "result", "changes", "duration", "registrations")]
    rows += [(r.stack, r.result, changes_text(r.changes), f"{r.duration:.1f} s", str(r.registrations)) for r in runs]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print()
    for row in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    failed = sum(r.result != "succeeded" for r in runs)
    print(f"{len(runs)} stacks: {len(runs) - failed} succeeded, {failed} failed, in {elapsed:.1f} s ({parallel} at a time)")
