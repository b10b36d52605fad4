"""The tool install is safe when runs overlap: one build at a time per cache folder."""

from __future__ import annotations

import fcntl
import pathlib
import subprocess
import time

from scripts.engine_tools import ROOT

INSTALL = ["bash", str(ROOT / "scripts" / "install-tools")]


def start() -> subprocess.Popen[str]:
    return subprocess.Popen(INSTALL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def bin_folder(run: subprocess.Popen[str]) -> str:
    out, err = run.communicate(timeout=300)
    assert run.returncode == 0, err
    return out.strip().splitlines()[-1]


def test_two_installs_of_a_cached_tool_at_once_both_succeed(engine):
    first, second = start(), start()
    assert bin_folder(first) == bin_folder(second) == engine["TOOLS_BIN"]


def test_an_install_waits_for_the_one_holding_the_cache(engine):
    lock = pathlib.Path(f"{pathlib.Path(engine['TOOLS_BIN']).parent}.lock")
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = start()
        time.sleep(2)
        assert waiting.poll() is None, "the second install did not wait for the lock"
        fcntl.flock(held, fcntl.LOCK_UN)
    assert bin_folder(waiting) == engine["TOOLS_BIN"]
