"""``python -m scripts.bench``: the benchmarks' command line (see ``scripts/bench/__init__``)."""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

from scripts import bench
from scripts.bench.common import ROOT


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=bench.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 300])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "bench-results"))
    parser.add_argument(
        "--skip-checkpoints", action="store_true", help="run the engine with PULUMI_SKIP_CHECKPOINTS=true (see the README)"
    )
    parser.add_argument("--registrations", action="store_true", help="P2 (no-op rerun) and P3 (slow platform)")
    parser.add_argument("--engine-parallel", type=int, help="the engine's --parallel for --registrations")
    parser.add_argument("--ready-latency", action="store_true", help="P4: Deployment Available to registration, on a cluster")
    parser.add_argument("--split", type=int, metavar="N", help="one stack of N connectors against the fleet command")
    parser.add_argument("--split-stacks", type=int, default=8)
    parser.add_argument("--split-operations", nargs="+", choices=["preview", "up"], default=["preview", "up"])
    parser.add_argument("--fleet", type=int, nargs="+", metavar="N", help="fleets of N registering connectors: before and now")
    parser.add_argument("--fleet-stack-size", type=int, default=25, help="--fleet: connectors per stack, the current way")
    parser.add_argument("--fleet-every-size", action="store_true", help="--fleet: the way before at every size, not the largest")
    parser.add_argument("--fleet-now-only", action="store_true", help="--fleet: the current way alone (no --checkpoints way)")
    parser.add_argument("--platform", type=int, metavar="N", help="a stack of one platform and N connectors against N alone")
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--sdk-defaults",
        action="store_true",
        help="P1 as in a user's own program: the SDK's defaults (no tuning), the component made by a plain program",
    )
    parser.add_argument(
        "--operations", nargs="+", choices=["preview", "up"], default=["preview", "up"],
        help="P1: what each variant runs (up: an up, then a no-op up)",
    )  # fmt: skip
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = arguments(argv)
    out = pathlib.Path(options.out)
    if options.skip_checkpoints:
        os.environ["PULUMI_SKIP_CHECKPOINTS"] = "true"
    if options.registrations:
        from scripts.bench.registrations import registration_benchmark

        return registration_benchmark(out, options.engine_parallel)
    if options.ready_latency:
        from scripts.bench.ready import ready_latency_benchmark

        return ready_latency_benchmark(out)
    if options.fleet:
        from scripts.bench.fleet import fleet_benchmark

        return fleet_benchmark(
            options.fleet, options.fleet_stack_size, options.parallel, out, options.fleet_every_size, options.fleet_now_only
        )
    if options.platform:
        from scripts.bench.platform_stack import platform_benchmark

        return platform_benchmark(options.platform, options.rounds, out)
    if options.split:
        from scripts.bench.split import split_benchmark

        return split_benchmark(options.split, options.split_stacks, options.parallel, out, options.split_operations)
    from scripts.bench.p1 import p1_benchmark

    return p1_benchmark(options.sizes, options.rounds, out, options.skip_checkpoints, options.sdk_defaults, options.operations)


if __name__ == "__main__":
    sys.exit(main())
