"""A run ended by SIGTERM (a cancelled CI job) or Ctrl-C: the engine is cancelled the graceful
way, with the CLI's own interrupt (SIGINT: it finishes the steps in flight, saves the state and
releases the stack's lock), waited for within a bound, and no process is left behind.

This process becomes a "subreaper" (Linux ``PR_SET_CHILD_SUBREAPER``), so that the CLI's
plugins (the Kubernetes plugin, the dynamic-provider host) stay its descendants even when the
CLI exits before them; once an interrupted CLI is done, or the bound passed, whatever is left
of them is killed. A second signal kills everything at once.

The handler does nothing but pass the signal on: it runs in the main thread between two of its
bytecodes, most often while the Automation API's command runner waits for the threads reading the
engine's output (``pulumi/automation/_cmd.py``), so it neither reads /proc, prints, nor raises
there (a ``SystemExit`` out of that wait closes the pipes under the reading threads: "I/O
operation on closed file", the engine left running). A thread of this module takes the signals
one at a time, in order: cancels, says so, and kills on a second.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

GRACE_SECONDS = 60.0
PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1
PARENT_DIED = signal.SIGHUP
"""What a fleet's stack worker gets when the fleet dies (``end_with``). Not SIGTERM: the kernel
sends the parent-death signal each time the worker is handed on, first to each thread of the dying
fleet still alive, then to the reaper, so a fleet killed outright sends two or more, milliseconds
apart (more on a loaded machine), and a second SIGTERM means "kill now". Any number of these is one
graceful cancel (as a SIGTERM)."""
POLL_SECONDS = 0.1
_parent_gone = False


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


def _on_parent_death(_signum: int, _frame: FrameType | None) -> None:
    """Outside ``graceful_interrupts``: the parent's death is one SIGTERM to this process; the
    same death signalled again is nothing."""
    global _parent_gone
    if not _parent_gone:
        _parent_gone = True
        os.kill(os.getpid(), signal.SIGTERM)


def end_with(parent: int) -> None:
    """This process is cancelled as by a SIGTERM (a graceful cancel, as from a CI job's end) when
    ``parent`` dies, however it dies: a fleet's stack worker runs in a session of its own, so a
    SIGKILL of the fleet (an out-of-memory kill, a runner killing the command's process group)
    would otherwise leave it registering, unseen, beside the next run. The kernel says so with
    ``PARENT_DIED``, once or more (see there). Exits at once when ``parent`` is gone already."""
    signal.signal(PARENT_DIED, _on_parent_death)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, PARENT_DIED, 0, 0, 0)
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


def _running_the_engine(frame: FrameType | None) -> bool:
    """Whether ``frame`` (the main thread's, where a signal found it) is inside the Automation
    API's command runner (``PulumiCommand.run``): the engine runs, or is starting, or its output
    is still being read."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "run" and code.co_filename.endswith(os.path.join("pulumi", "automation", "_cmd.py")):
            return True
        frame = frame.f_back
    return False


def _engines() -> list[int]:
    return [pid for pid, (ppid, _) in _process_table().items() if ppid == os.getpid()]


def _cancel(state: Interrupted, cli: list[int], grace: float, interrupt: bool = True) -> None:
    """The engine's processes ``cli`` interrupted (SIGINT), waited for within ``grace``."""
    if interrupt:
        _kill(cli, signal.SIGINT)
    state.cli = cli
    threading.Thread(target=_clean_up, args=(state, grace), daemon=True).start()


def _watch(state: Interrupted, wake: int, grace: float) -> None:
    """The signals the handler passed on (``wake``, a byte each, to its end), in order: the first
    cancels the engine, and any engine that starts after it (the signal came as one was being
    started, or between two commands); a second SIGTERM or SIGINT kills everything at once; the
    parent's death again changes nothing."""
    waiting_for_engine = False
    poller = select.poll()
    poller.register(wake, select.POLLIN)
    while True:
        if not poller.poll(POLL_SECONDS * 1000 if waiting_for_engine else None):
            if cli := _engines():
                waiting_for_engine = False
                _cancel(state, cli, grace)
            continue
        got = os.read(wake, 1)
        if not got:
            return
        signum = got[0]
        if state.signal is None:
            state.signal = signal.SIGTERM if signum == PARENT_DIED else signum
            print("connectors: interrupted: cancelling the engine; the state keeps what was done", file=sys.stderr, flush=True)
            cli = _engines()
            waiting_for_engine = not cli
            if cli:
                typed = signum == signal.SIGINT and _from_the_terminal()  # the terminal's Ctrl-C reached the CLI already
                _cancel(state, cli, grace, interrupt=not typed)
        elif signum != PARENT_DIED:
            waiting_for_engine = False
            _kill(descendants(os.getpid()), signal.SIGKILL)


@contextmanager
def graceful_interrupts(grace: float = GRACE_SECONDS) -> Iterator[Interrupted]:
    """For the block: SIGTERM and SIGINT cancel the CLI gracefully (see the module); so does the
    parent's death once ``end_with`` watches for it."""
    state = Interrupted()
    _become_subreaper()
    received: list[int] = []
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)

    def handle(signum: int, frame: FrameType | None) -> None:
        """The main thread, between two bytecodes: passes the signal on, and raises only where
        the engine does not run (nothing to cancel: stop here)."""
        global _parent_gone
        if signum == PARENT_DIED:
            _parent_gone = True
        received.append(signum)
        if len(received) == 1 and not _running_the_engine(frame):
            state.signal = signal.SIGTERM if signum == PARENT_DIED else signum
            raise SystemExit(state.exit_code)
        try:
            os.write(wake_write, bytes([signum]))
        except BlockingIOError:  # thousands of signals unread: the first of them decide
            pass

    watcher = threading.Thread(target=_watch, args=(state, wake_read, grace), name="interrupts", daemon=True)
    watcher.start()
    signals = [signal.SIGTERM, signal.SIGINT]
    if signal.getsignal(PARENT_DIED) is _on_parent_death:
        signals.append(PARENT_DIED)
    previous = {sig: signal.signal(sig, handle) for sig in signals}
    try:
        yield state
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(wake_write)  # the watcher reads the end and returns
        watcher.join()
        os.close(wake_read)
        if state.signal is not None:
            _clean_up(state, grace)
