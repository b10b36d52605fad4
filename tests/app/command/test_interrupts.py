"""``command.interrupts``: the process table it reads, whatever /proc holds; a fleet's death, signalled again and again."""

from __future__ import annotations

import io
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from components.app.command import interrupts
from tests.support.skipping import ROOT


def test_the_process_table_skips_what_went_away_while_it_was_read(monkeypatch):
    """A process that exits while the table is read leaves a stat that is empty or cut short:
    it is skipped, not an exception inside a signal handler (which would cancel nothing)."""
    stats = {
        "10": "10 (pulumi) S 7 10 10 0",
        "11": "11 (name (with) parens) R 10 11 11 0",
        "12": "",
        "13": "13 (cut",
        "14": "14 (gone) Z 10 14 14 0",
    }

    def fake_open(path: str, *_: object) -> io.StringIO:
        entry = path.split("/")[2]
        if entry not in stats:
            raise FileNotFoundError(path)
        return io.StringIO(stats[entry])

    monkeypatch.setattr(interrupts.os, "listdir", lambda _: [*stats, "15", "self"])
    monkeypatch.setattr(interrupts, "open", fake_open, raising=False)
    assert interrupts._process_table() == {10: (7, "pulumi"), 11: (10, "name (with) parens")}


def test_the_process_table_holds_this_process():
    assert interrupts._process_table()[os.getpid()][0] == os.getppid()


ENGINE = """#!{python}
import os, pathlib, signal, sys, time
if sys.argv[1:] == ["version"]:
    print("v3.274.0")
    sys.exit(0)
here = pathlib.Path({folder!r})
stop = []
signal.signal(signal.SIGINT, lambda *_: stop.append(1))
(here / "engine.pid").write_text(str(os.getpid()))
n = 0
while not stop:  # output as fast as a busy engine's, read by the SDK's two threads
    n += 1
    print(f"step {{n}} " + "x" * 80, flush=True)
    print(f"diagnostic {{n}}", file=sys.stderr, flush=True)
    time.sleep(0.0005)
time.sleep(1.5)  # the steps in flight finish, the state is saved
(here / "released").write_text("the lock released")
print("update cancelled", flush=True)
sys.exit(255)
"""

WORKER = """
import pathlib, sys
from pulumi import automation as auto
from pulumi.automation._cmd import PulumiCommand
from components.app.command import interrupts

parent, root, result = int(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
interrupts.end_with(parent)
code = 0
try:
    with interrupts.graceful_interrupts(grace=30) as state:
        try:
            PulumiCommand(root=root, skip_version_check=True).run(["up"], root, {{}}, on_output=len, on_error=len)
        except auto.CommandError:
            code = state.exit_code or 1
except SystemExit as stop:
    code = stop.code
    raise
finally:
    result.write_text(str(code))
"""

FLEET = """
import os, pathlib, signal, subprocess, sys, threading, time
worker, root, result, log = sys.argv[1:5]
started = pathlib.Path(root) / "engine.pid"

def start():
    with open(log, "w") as out:
        subprocess.Popen([sys.executable, worker, str(os.getpid()), root, result], stdout=out, stderr=subprocess.STDOUT,
                         start_new_session=True)
    while not started.exists():
        time.sleep(0.05)

thread = threading.Thread(target=start)  # as the fleet's pool thread starts a stack's worker
thread.start()
thread.join()  # that thread ends: the worker is handed to this main thread, a parent-death signal
time.sleep(0.3)
os.kill(os.getpid(), signal.SIGKILL)  # the fleet killed outright: the worker handed on again, another
"""


def _gone(pid: int) -> bool:
    try:
        text = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2 :].split()[0] == "Z"


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_a_fleet_dying_thread_by_thread_cancels_the_engine_once_and_says_so(tmp_path):
    """A fleet killed outright hands its stack worker on once per thread of it still alive, and
    the kernel sends the worker its parent-death signal each time: under load these come apart
    (here 0.3 s), while the worker's main thread waits in the SDK's command runner reading the
    engine's output. The engine is interrupted once (SIGINT), finishes its cancel and releases
    the stack; the worker says so once; nothing is killed, no reader finds its pipe closed."""
    (tmp_path / "bin").mkdir()
    engine = tmp_path / "bin" / "pulumi"
    engine.write_text(ENGINE.format(python=sys.executable, folder=str(tmp_path)))
    engine.chmod(0o755)
    (tmp_path / "worker.py").write_text(WORKER.format())
    (tmp_path / "fleet.py").write_text(FLEET)
    result, log = tmp_path / "result", tmp_path / "worker.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    fleet = subprocess.run(
        [sys.executable, str(tmp_path / "fleet.py"), str(tmp_path / "worker.py"), str(tmp_path), str(result), str(log)],
        env=env,
        timeout=120,
    )
    assert fleet.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 60
    while not result.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    output = log.read_text()
    assert result.read_text() == str(128 + signal.SIGTERM), output[-3000:]
    assert output.count("interrupted: cancelling the engine") == 1, output[-3000:]
    assert (tmp_path / "released").exists(), "the engine was cancelled, not killed: " + output[-3000:]
    assert "Traceback" not in output and "closed file" not in output, output[-3000:]
    assert _gone(int((tmp_path / "engine.pid").read_text()))
