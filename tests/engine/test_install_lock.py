"""The tool install is safe when runs overlap: one build at a time per cache folder."""

from __future__ import annotations

import fcntl
import os
import pathlib
import signal
import subprocess
import time

from tests.conftest import ROOT

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


STANDIN_GO = """#!/bin/sh
# A stand-in for go: every step succeeds at once but the build, which takes its time.
case "$1" in build) sleep 30 ;; esac
exit 0
"""


def test_a_first_build_says_what_it_builds_and_shows_progress(tmp_path):
    """A first build takes many minutes: it says what it builds and how long that takes once,
    then a line at each interval while it builds, on stderr (stdout's last line stays the bin folder)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "go").write_text(STANDIN_GO)
    (bin_dir / "go").chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CONNECTOR_TOOLS_CACHE": str(tmp_path / "cache"),
        "INSTALL_PROGRESS_SECONDS": "1",
    }
    run = subprocess.Popen(INSTALL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        assert run.stderr is not None
        first = run.stderr.readline()
        assert first.startswith("install-tools: building the Pulumi CLI v") and "once, about 15 minutes" in first, first
        assert "still building the Pulumi CLI (" in run.stderr.readline()
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
