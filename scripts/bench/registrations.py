"""P2, a no-op rerun of registered connectors, and P3, registrations against a slow platform."""

from __future__ import annotations

import json
import pathlib
import tempfile
import time
from typing import Any

from .common import component_program, connectors, engine_environment, inline_stack, machine, registering, write_result


def registering_stack(n: int, platform_url: str, folder: pathlib.Path, env: dict[str, str]) -> Any:
    from pulumi import automation as auto

    stack = inline_stack(f"bench-reg-{n}", component_program, folder, env)
    entries = registering(connectors(n), platform_url)
    stack.set_config("connectors:renderDirectory", auto.ConfigValue(str(folder / "rendered")))
    stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(entries)))
    return stack


def most_at_once(starts: list[float], seconds: float) -> int:
    """The most requests in flight together, each taking ``seconds`` from its start."""
    edges = sorted([(t, 1) for t in starts] + [(t + seconds, -1) for t in starts], key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, step in edges:
        level += step
        peak = max(peak, level)
    return peak


def noop_rerun(env: dict[str, str], options: dict[str, Any], n: int = 100) -> dict[str, Any]:
    """P2: the changes and platform requests of a rerun of ``n`` registered connectors (both 0)."""
    from tests.support.platform_double import platform_double

    with platform_double() as double, tempfile.TemporaryDirectory(prefix="bench-p2-") as folder:
        stack = registering_stack(n, double.url, pathlib.Path(folder), env)
        stack.up(**options)
        first = len(double.calls)
        start = time.perf_counter()
        rerun = stack.up(**options)
        return {
            "n": n,
            "registrations": len(double.requests),
            "noop_up_s": round(time.perf_counter() - start, 1),
            "noop_changes": {op: k for op, k in (rerun.summary.resource_changes or {}).items() if op != "same" and k},
            "noop_platform_requests": len(double.calls) - first,
        }


def slow_platform(env: dict[str, str], options: dict[str, Any], n: int = 50, delay: float = 1.0) -> dict[str, Any]:
    """P3: ``n`` registrations against a platform answering in ``delay`` s: the registration
    phase against the serial sum, and the most requests in flight at once."""
    from tests.support.platform_double import platform_double

    with platform_double() as double, tempfile.TemporaryDirectory(prefix="bench-p3-") as folder:
        double.register_delay = delay
        stack = registering_stack(n, double.url, pathlib.Path(folder), env)
        start = time.perf_counter()
        stack.up(**options)
        up_s = time.perf_counter() - start
        arrivals = [t.timestamp() for t in double.register_times]
        phase = max(arrivals) + delay - min(arrivals)
        return {
            "n": n,
            "requests": len(double.requests),
            "platform_answer_s": delay,
            "up_s": round(up_s, 1),
            "registration_phase_s": round(phase, 1),
            "serial_sum_s": n * delay,
            "fraction_of_serial": round(phase / (n * delay), 3),
            "most_in_flight": most_at_once(arrivals, delay),
        }


def registration_benchmark(out: pathlib.Path, parallel: int | None) -> int:
    env = engine_environment()
    options = {"parallel": parallel} if parallel else {}
    summary: dict[str, Any] = {"engine_parallel": parallel or "default"}
    summary["p2"] = noop_rerun(env, options)
    print(f"P2: {summary['p2']}", flush=True)
    summary["p3"] = slow_platform(env, options)
    print(f"P3: {summary['p3']}", flush=True)
    write_result(out, "registrations.json", {**summary, "machine": machine()})
    return 0
