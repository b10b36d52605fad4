"""A stack with one platform and N connectors against the same N connectors alone (issue 53):
preview, up and a no-op up of each, through the main command's program in this process, render
mode (no cluster), the two sides interleaved round by round and their order swapped every round."""

from __future__ import annotations

import json
import pathlib
import statistics
import tempfile
from typing import Any

from .common import (
    component_program,
    connectors,
    engine_environment,
    inline_stack,
    machine,
    preview_as_deployed,
    run_as_deployed,
    timed,
    write_result,
)

SIDES = ("connectors-alone", "with-a-platform")
OPERATIONS = ("preview", "up", "noop_up")


def platform_entry() -> dict[str, Any]:
    """A platform of the external kind (the operator's minimal variant's spec), in the connectors' namespace."""
    spec = {
        "database": {"host": "db.example.com", "name": "ilm", "credentials": {"secretRef": "core-secret"}},
        "messaging": {"host": "messaging-service", "virtualHost": "ilm", "credentials": {"secretRef": "messaging-secret"}},
        "core": {"replicas": 1},
    }
    return {"name": "ilm", "namespace": "bench", "spec": spec}


def run_side(side: str, n: int, folder: pathlib.Path, env: dict[str, str]) -> dict[str, float]:
    from pulumi import automation as auto

    stack = inline_stack(f"platform-bench-{n}", component_program, folder, env)
    stack.set_config("connectors:renderDirectory", auto.ConfigValue(str(folder / "rendered")))
    stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(connectors(n))))
    if side == "with-a-platform":
        stack.set_config("connectors:platforms", auto.ConfigValue(json.dumps([platform_entry()])))
    return {"preview": timed(lambda: preview_as_deployed(stack)), "up": timed(stack.up), "noop_up": timed(stack.up)}


def platform_benchmark(n: int, rounds: int, out: pathlib.Path) -> int:
    env = engine_environment()
    run_as_deployed()
    seconds: dict[str, dict[str, list[float]]] = {side: {op: [] for op in OPERATIONS} for side in SIDES}
    for round_ in range(rounds):
        for side in SIDES if round_ % 2 == 0 else tuple(reversed(SIDES)):
            with tempfile.TemporaryDirectory(prefix="bench-platform-") as folder:
                times = run_side(side, n, pathlib.Path(folder), env)
            for operation, value in times.items():
                seconds[side][operation].append(value)
            print(f"round {round_ + 1} {side}: " + ", ".join(f"{op} {t:.1f} s" for op, t in times.items()), flush=True)
    rows = []
    for operation in OPERATIONS:
        alone, joined = seconds["connectors-alone"][operation], seconds["with-a-platform"][operation]
        ratios = [w / a for w, a in zip(joined, alone, strict=True)]
        rows.append(
            {
                "operation": operation,
                "connectors_alone_s": round(statistics.median(alone), 2),
                "with_a_platform_s": round(statistics.median(joined), 2),
                "ratio": round(statistics.median(ratios), 2),
                "ratio_spread": [round(min(ratios), 2), round(max(ratios), 2)],
            }
        )
        print(json.dumps(rows[-1]))
    summary = {"connectors": n, "rounds": rounds, "machine": machine(), "seconds": seconds, "rows": rows}
    write_result(out, "platform-stack.json", summary)
    return 0
