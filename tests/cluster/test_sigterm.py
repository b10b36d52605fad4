"""A test run ended by SIGTERM (a CI time-out, ``kill``) leaves no control-plane process behind."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

from ..conftest import ROOT


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = pathlib.Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split(") ")[-1][0] != "Z"


def wait_for(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def holding_a_cluster(probe: pathlib.Path) -> subprocess.Popen[str]:
    """A pytest run of its own that brings a cluster up, writes its pids to ``probe`` and waits."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "cluster" / "sigterm_probe.py")],
        cwd=ROOT,
        env={**os.environ, "SIGTERM_PROBE_FILE": str(probe)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def ended(run: subprocess.Popen[str], probe: pathlib.Path, end: str) -> dict:
    """Waits for the run to hold its cluster, ends it by ``end`` (a method of the process), and
    returns what it held."""
    try:
        assert wait_for(probe.exists, 180), "the probe run did not bring its cluster up"
        held = json.loads(probe.read_text())
        assert len(held["pids"]) == 5 and all(alive(pid) for pid in held["pids"])
        getattr(run, end)()
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    return held


def test_sigterm_to_a_run_holding_the_cluster_stops_every_process(cluster, tmp_path):
    probe = tmp_path / "probe.json"
    held = ended(holding_a_cluster(probe), probe, "terminate")
    assert wait_for(lambda: not any(alive(pid) for pid in held["pids"]), 30), "control-plane processes left running"
    assert not pathlib.Path(held["folder"]).exists()


def test_a_run_killed_outright_leaves_no_process_either(cluster, tmp_path):
    probe = tmp_path / "probe.json"
    held = ended(holding_a_cluster(probe), probe, "kill")
    assert wait_for(lambda: not any(alive(pid) for pid in held["pids"]), 30), "control-plane processes left running"
    shutil.rmtree(held["folder"], ignore_errors=True)  # a process killed outright cannot clean up its files
