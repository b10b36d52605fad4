"""A run ended by SIGTERM (a cancelled CI job) or Ctrl-C: the engine is cancelled the graceful
way, with the CLI's own interrupt (SIGINT: it finishes the steps in flight, saves the state and
releases the stack's lock), waited for within a bound, and no process is left behind.

This process becomes a "subreaper" (Linux ``PR_SET_CHILD_SUBREAPER``), so that the CLI's
plugins (the Kubernetes plugin, the dynamic-provider host) stay its descendants even when the
CLI exits before them; once an interrupted CLI is done, or the bound passed, whatever is left
of them is killed. A second signal kills everything at once.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

GRACE_SECONDS = 60.0
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


@dataclass
class Interrupted:
    signal: int | None = None
    cli: list[int] = field(default_factory=list)

    @property
    def exit_code(self) -> int | None:
        return 128 + self.signal if self.signal else None


def _process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command name), from /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
            name = text[text.index("(") + 1 : text.rindex(")")]
            state, parent = text[text.rindex(")") + 2 :].split()[:2]
            parent_pid = int(parent)
        except (OSError, ValueError):  # gone, or going, while it was read: not there any more
            continue
        if state != "Z":  # zombies are gone already
            table[int(entry)] = (parent_pid, name)
    return table


def descendants(pid: int) -> list[int]:
    table = _process_table()
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        children = [p for p, (ppid, _) in table.items() if ppid == parent]
        found += children
        frontier += children
    return found


def _kill(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _become_subreaper() -> None:
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def end_with(parent: int) -> None:
    """This process gets SIGTERM (a graceful cancel, as from a CI job's end) when ``parent``
    dies, however it dies: a fleet's stack worker runs in a session of its own, so a SIGKILL of
    the fleet (an out-of-memory kill, a runner killing the command's process group) would
    otherwise leave it registering, unseen, beside the next run. Exits at once when ``parent``
    is gone already."""
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        raise SystemExit(128 + signal.SIGTERM)


def _clean_up(state: Interrupted, grace: float) -> None:
    """Waits for the interrupted CLI within ``grace``, then kills what is left."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(pid in _process_table() for pid in state.cli):
        time.sleep(0.2)
    if any(pid in _process_table() for pid in state.cli):
        print(
            f"connectors: the engine did not stop within {grace:g} s and was killed: if the stack stays locked, "
            "run connectors cancel, then up (a registration it may have sent is adopted on 409)",
            file=sys.stderr,
            flush=True,
        )
    _kill(descendants(os.getpid()), signal.SIGKILL)


def _from_the_terminal() -> bool:
    """A Ctrl-C typed in the terminal this process runs in the foreground of: the terminal
    sent it to the whole process group, the CLI included."""
    try:
        return os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        return False


@contextmanager
def graceful_interrupts(grace: float = GRACE_SECONDS) -> Iterator[Interrupted]:
    """For the block: SIGTERM and SIGINT cancel the CLI gracefully (see the module)."""
    state = Interrupted()
    _become_subreaper()

    def handle(signum: int, _frame: object) -> None:
        if state.signal is not None:
            _kill(descendants(os.getpid()), signal.SIGKILL)
            return
        state.signal = signum
        state.cli = [pid for pid, (ppid, _) in _process_table().items() if ppid == os.getpid()]
        if not state.cli:  # the engine has not started: nothing to cancel, stop here
            raise SystemExit(128 + signum)
        print("connectors: interrupted: cancelling the engine; the state keeps what was done", file=sys.stderr, flush=True)
        if signum == signal.SIGTERM or not _from_the_terminal():  # a terminal's Ctrl-C reached the CLI already
            _kill(state.cli, signal.SIGINT)
        threading.Thread(target=_clean_up, args=(state, grace), daemon=True).start()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield state
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if state.signal is not None:
            _clean_up(state, grace)
