"""One stack of N connectors against the same N split into stacks run by the fleet command,
both through the main command (the same process start-up on each side)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import yaml

from .common import PASSPHRASE, ROOT, connectors, machine, write_result


def children_cpu_s() -> float:
    """CPU seconds (user and system) of this process's finished children and their descendants."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def write_stacks(work: pathlib.Path, n: int, stacks: int) -> None:
    """``single`` with every connector, and ``split-NN`` with a share each."""
    (work / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", work / "Pulumi.yaml")
    everything = connectors(n)

    def stack_file(name: str, entries: list[dict[str, Any]]) -> None:
        config = {"connectors:renderDirectory": str(work / "rendered" / name), "connectors:connectors": entries}
        (work / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))

    stack_file("single", everything)
    size = -(-n // stacks)
    for i in range(stacks):
        stack_file(f"split-{i:02d}", everything[i * size : (i + 1) * size])


def timed_run(work: pathlib.Path, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``connectors`` run; a failed run stops the benchmark."""
    env = {**os.environ, "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE}
    start, start_cpu = time.perf_counter(), children_cpu_s()
    command = [sys.executable, "-m", "components.app.command", *args, "--work-dir", str(work)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, children_cpu_s() - start_cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return wall, cpu


def split_benchmark(n: int, stacks: int, parallel: int, out: pathlib.Path, operations: list[str]) -> int:
    """Also measures each side's CPU time: the single stack's CPU spread over every core is the
    least wall time in which the same work can be done (``floor_ratio``, against the single
    stack's wall time), before the fixed cost each further stack adds; a split does better
    only where it does less work in all."""
    cpus = os.cpu_count() or 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-split-") as folder:
        work = pathlib.Path(folder)
        write_stacks(work, n, stacks)
        for op in operations:
            single, single_cpu = timed_run(work, op, "--stack", "single")
            fleet, fleet_cpu = timed_run(work, op, "--stacks", "split-*", "--parallel", str(parallel))
            print(
                f"{op}: single {single:.1f} s ({single_cpu:.1f} s CPU), fleet {fleet:.1f} s ({fleet_cpu:.1f} s CPU)", flush=True
            )
            rows.append(
                {
                    "operation": op,
                    "single_s": round(single, 1),
                    "fleet_s": round(fleet, 1),
                    "ratio": round(fleet / single, 2),
                    "single_cpu_s": round(single_cpu, 1),
                    "fleet_cpu_s": round(fleet_cpu, 1),
                    "floor_ratio": round(single_cpu / cpus / single, 2),
                }
            )
    print(f"\n{n} connectors: 1 stack against {stacks} stacks of {-(-n // stacks)} with {parallel} workers, {cpus} CPUs")
    for row in rows:
        print(
            f"{row['operation']:<8} single {row['single_s']:>7.1f} s ({row['single_cpu_s']:.1f} s CPU)  "
            f"fleet {row['fleet_s']:>7.1f} s ({row['fleet_cpu_s']:.1f} s CPU)  ratio {row['ratio']:.2f}  "
            f"floor {row['floor_ratio']:.2f}"
        )
    write_result(out, "split.json", {"machine": machine(), "connectors": n, "stacks": stacks, "parallel": parallel, "rows": rows})
    return 0
