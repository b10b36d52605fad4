"""A fleet of N connectors, each registering, through the fleet command as a user runs it
(``connectors up --stacks ... --parallel P``, a file backend, render mode, the platform stand-in
on 127.0.0.1 counting register calls): the way before the registration journal (``--checkpoints
--all``, stacks of 25) and the current default (the journal and change detection, stacks of
``--fleet-stack-size``) side by side in one run. Each way: an ``up``, a no-op rerun; the current
way also a no-op rerun with ``--all`` (every stack run, as before change detection), then one
stack's entries changed (an image tag) and the fleet's ``up`` against that stack's own ``up``
after a change of the same size.

Each side registers its own connectors (names prefixed by the side); the benchmark stops when a
run fails, when a connector is not registered exactly once, or when a rerun sends a request."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import yaml

from .common import PASSPHRASE, ROOT, connectors, machine, registering, write_result
from .split import children_cpu_s


@dataclass(frozen=True)
class Way:
    name: str
    stack_size: int
    flags: tuple[str, ...]


def ways(stack_size: int) -> list[Way]:
    return [Way("checkpoints", 25, ("--checkpoints", "--all")), Way("journal", stack_size, ())]


def write_fleet(work: pathlib.Path, way: Way, n: int, platform_url: str) -> None:
    entries = connectors(n)
    for entry in entries:
        entry["name"] = f"{way.name[:4]}-{entry['name']}"
    registering(entries, platform_url)
    for i in range(0, n, way.stack_size):
        name = f"{way.name}-{i // way.stack_size:03d}"
        share = entries[i : i + way.stack_size]
        config = {"connectors:renderDirectory": str(work / "rendered" / name), "connectors:connectors": share}
        (work / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))


def fleet_run(work: pathlib.Path, way: Way, parallel: int, *more: str, stack: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of ``connectors up`` over the way's stacks (or ``stack`` alone)."""
    env = {**os.environ, "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE, "PULUMI_BACKEND_URL": f"file://{work / 'state'}"}
    which = ["--stack", stack] if stack else ["--stacks", f"{way.name}-*", "--parallel", str(parallel)]
    command = [sys.executable, "-m", "components.app.command", "up", *which, *more]
    start, start_cpu = time.perf_counter(), children_cpu_s()
    done = subprocess.run([*command, *way.flags, "--work-dir", str(work)], cwd=ROOT, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, children_cpu_s() - start_cpu
    if done.returncode != 0:
        raise SystemExit(f"{way.name}: up failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return wall, cpu


def measure(way: Way, n: int, parallel: int) -> dict[str, Any]:
    from tests.support.platform_double import platform_double

    with platform_double() as double, tempfile.TemporaryDirectory(prefix="bench-fleet-") as folder:
        work = pathlib.Path(folder)
        (work / "stacks").mkdir()
        (work / "state").mkdir()
        shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
        write_fleet(work, way, n, double.url)
        up, up_cpu = fleet_run(work, way, parallel)
        once = Counter(r.name for r in double.records.values())
        if len(once) != n or set(once.values()) != {1} or len(double.requests) != n:
            raise SystemExit(f"{way.name}: {len(double.requests)} register calls for {n} connectors")
        noop, noop_cpu = fleet_run(work, way, parallel)
        row = {"way": way.name, "n": n, "stacks": -(-n // way.stack_size), "stack_size": way.stack_size}
        row |= {"up_s": round(up, 1), "up_cpu_s": round(up_cpu, 1), "noop_s": round(noop, 1), "noop_cpu_s": round(noop_cpu, 1)}
        if way.name == "journal":
            row |= changed_stack(work, way, parallel)
        if len(double.requests) != n:
            raise SystemExit(f"{way.name}: the reruns sent {len(double.requests) - n} register calls")
    return row


def changed_stack(work: pathlib.Path, way: Way, parallel: int) -> dict[str, float]:
    """Change detection's figures: the no-op with every stack run (``--all``), the fleet's ``up``
    with one stack changed, and that stack's own ``up`` after a change of the same size."""
    every, _ = fleet_run(work, way, parallel, "--all")
    first = f"{way.name}-000"
    retag(work, first, "2.0")
    one, _ = fleet_run(work, way, parallel)
    retag(work, first, "3.0")
    alone, _ = fleet_run(work, way, parallel, stack=first)
    return {"noop_all_s": round(every, 1), "one_changed_s": round(one, 1), "that_stack_s": round(alone, 1)}


def retag(work: pathlib.Path, stack: str, tag: str) -> None:
    """Every entry of ``stack`` given the image tag ``tag`` (a change that registers nothing)."""
    path = work / "stacks" / f"Pulumi.{stack}.yaml"
    settings = yaml.safe_load(path.read_text())
    for entry in settings["config"]["connectors:connectors"]:
        entry["spec"]["image"]["tag"] = tag
    path.write_text(yaml.safe_dump(settings))


def fleet_benchmark(
    sizes: list[int], stack_size: int, parallel: int, out: pathlib.Path, every_size: bool, now_only: bool = False
) -> int:
    """The journal at every size; the way before it at the largest (``every_size``: at each;
    ``now_only``: never)."""
    rows = []
    for n in sorted(sizes):
        for way in ways(stack_size):
            if way.name == "journal" or (not now_only and (every_size or n == max(sizes))):
                rows.append(measure(way, n, parallel))
                print(rows[-1], flush=True)
    print(f"\nfleet up and no-op rerun, {parallel} workers, {os.cpu_count()} CPUs")
    print(f"{'way':<12} {'n':>5} {'stacks':>7} {'up':>9} {'s/conn':>7} {'no-op':>9} {'--all':>9} {'1 changed':>10} {'alone':>9}")
    for r in rows:
        detection = [r.get(k) for k in ("noop_all_s", "one_changed_s", "that_stack_s")]
        print(
            f"{r['way']:<12} {r['n']:>5} {r['stacks']:>4}x{r['stack_size']:<3} {r['up_s']:>7.1f} s {r['up_s'] / r['n']:>7.3f} "
            f"{r['noop_s']:>7.1f} s " + " ".join(f"{v:>7.1f} s" if v is not None else f"{'-':>9}" for v in detection)
        )
    largest = [r for r in rows if r["n"] == max(sizes)]
    if len(largest) == 2:
        before, now = largest
        ratios = f"up {now['up_s'] / before['up_s']:.2f}, no-op {now['noop_s'] / before['noop_s']:.2f}"
        print(f"journal / checkpoints at {max(sizes)}: {ratios}")
    write_result(out, "fleet.json", {"machine": machine(), "parallel": parallel, "rows": rows})
    return 0
