"""Benchmark: the component against a hand-written program of the same objects, through the
real engine (Automation API inline, render mode, a ``file://`` backend in a temporary folder).

    python scripts/bench.py [--sizes 10 100 300] [--rounds 1] [--out bench-results]
    python scripts/bench.py --split 200 --split-stacks 8 --parallel 4 [--out bench-results]

For each size n, both variants run interleaved in the same process: preview, first up, no-op
up. Prints a table (seconds, the component / hand-written ratio, seconds per connector) and
writes ``<out>/bench.json`` and, when matplotlib is installed, ``<out>/bench.png`` (seconds
against n, one line per variant and operation). Never part of ``make test``; no test asserts
a time. (P1 and growth of issue #14; the registration and cluster measurements are not here yet.)

``--split N``: one stack of N connectors against the same N as ``--split-stacks`` stacks run by
the fleet command (``deploy.py <op> --stacks 'split-*' --parallel P``), side by side in one
run, through ``scripts/deploy.py`` for both (the same process start-up on each side): preview
and up, and the ratio fleet / single. State in ``PULUMI_BACKEND_URL`` when set (e.g. the team's
PostgreSQL), else a ``file://`` folder. Writes ``<out>/split.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OPERATIONS = ("preview", "up", "noop_up")
VARIANTS = ("hand-written", "component")


def connectors(n: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"bench-{i:04d}",
            "namespace": "bench",
            "spec": {"image": {"repository": "r.example/bench", "tag": "1.0.0"}, "env": [{"name": "LOG_LEVEL", "value": "INFO"}]},
        }
        for i in range(n)
    ]


def hand_written_program() -> None:
    """The same four objects per connector, written directly with pulumi_kubernetes."""
    import pulumi
    import pulumi_kubernetes as k8s

    config = pulumi.Config("connectors")
    provider = k8s.Provider("render", render_yaml_to_directory=config.require("renderDirectory"))
    opts = pulumi.ResourceOptions(provider=provider)
    for entry in json.loads(config.require("connectors")):
        name, namespace = entry["name"], entry["namespace"]
        selector = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": "connector", "otilm.com/connector": name}
        labels = {**selector, "app.kubernetes.io/managed-by": "pulumi-connector"}
        meta = {"name": name, "namespace": namespace, "labels": labels}
        account = k8s.core.v1.ServiceAccount(name, metadata=meta, opts=opts)
        k8s.core.v1.Service(
            name,
            metadata=meta,
            spec={
                "type": "ClusterIP",
                "selector": selector,
                "ports": [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}],
            },
            opts=opts,
        )
        hardened = {
            "runAsNonRoot": True,
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
            "readOnlyRootFilesystem": True,
        }
        k8s.apps.v1.Deployment(
            name,
            metadata=meta,
            spec={
                "replicas": 1,
                "selector": {"matchLabels": selector},
                "template": {
                    "metadata": {"labels": labels},
                    "spec": {
                        "serviceAccountName": name,
                        "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
                        "containers": [
                            {
                                "name": "connector",
                                "image": "r.example/bench:1.0.0",
                                "ports": [{"name": "http", "containerPort": 8080}],
                                "env": entry["spec"]["env"],
                                "securityContext": hardened,
                            }
                        ],
                    },
                },
            },
            opts=pulumi.ResourceOptions(provider=provider, depends_on=[account]),
        )
        k8s.networking.v1.NetworkPolicy(
            name,
            metadata=meta,
            spec={
                "podSelector": {"matchLabels": selector},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 8080}]}],
            },
            opts=opts,
        )


def component_program() -> None:
    from components.program import connectors_program

    connectors_program()


def timed(operation: Callable[[], Any]) -> float:
    start = time.perf_counter()
    operation()
    return time.perf_counter() - start


def run_variant(variant: str, n: int, folder: pathlib.Path, env: dict[str, str]) -> dict[str, float]:
    from pulumi import automation as auto

    work, state, render = folder / "work", folder / "state", folder / "rendered"
    for path in (work, state):
        path.mkdir(parents=True)
    program = hand_written_program if variant == "hand-written" else component_program
    stack = auto.create_stack(
        f"bench-{n}",
        project_name="connectors",
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=str(work),
            pulumi_home=env["PULUMI_HOME"],
            env_vars={**env, "PULUMI_BACKEND_URL": f"file://{state}"},
            project_settings=auto.ProjectSettings(name="connectors", runtime="python"),
            secrets_provider="passphrase",
        ),
    )
    stack.set_config("connectors:renderDirectory", auto.ConfigValue(str(render)))
    stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(connectors(n))))
    times = {
        "preview": timed(stack.preview),
        "up": timed(stack.up),
        "noop_up": timed(stack.up),
    }
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 300])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--out", default=str(ROOT / "bench-results"))
    parser.add_argument("--split", type=int, metavar="N", help="one stack of N connectors against the fleet command")
    parser.add_argument("--split-stacks", type=int, default=8)
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 2)
    options = parser.parse_args(argv)
    if options.split:
        return split_benchmark(options.split, options.split_stacks, options.parallel, pathlib.Path(options.out))

    from scripts.engine_tools import engine_env, tools_bin

    env = engine_env(tools_bin(), "bench-passphrase")
    os.environ.update(env)
    results: dict[str, dict[str, dict[str, list[float]]]] = {}
    for n in options.sizes:
        for round_ in range(options.rounds):
            order = VARIANTS if round_ % 2 == 0 else tuple(reversed(VARIANTS))
            for variant in order:
                with tempfile.TemporaryDirectory(prefix="bench-") as folder:
                    times = run_variant(variant, n, pathlib.Path(folder), env)
                for operation, seconds in times.items():
                    results.setdefault(str(n), {}).setdefault(variant, {}).setdefault(operation, []).append(seconds)
                print(f"n={n} {variant}: " + ", ".join(f"{op} {t:.1f} s" for op, t in times.items()), flush=True)

    rows = []
    for n, variants in results.items():
        for operation in OPERATIONS:
            hand = statistics.median(variants["hand-written"][operation])
            component = statistics.median(variants["component"][operation])
            rows.append(
                {
                    "n": int(n),
                    "operation": operation,
                    "hand_written_s": round(hand, 2),
                    "component_s": round(component, 2),
                    "ratio": round(component / hand, 2),
                    "component_s_per_connector": round(component / int(n), 4),
                }
            )
    print(f"\n{'n':>5} {'operation':<9} {'hand-written':>12} {'component':>10} {'ratio':>6} {'s/connector':>12}")
    for row in rows:
        print(
            f"{row['n']:>5} {row['operation']:<9} {row['hand_written_s']:>11.1f}s {row['component_s']:>9.1f}s "
            f"{row['ratio']:>6.2f} {row['component_s_per_connector']:>12.4f}"
        )
    out = pathlib.Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    (out / "bench.json").write_text(json.dumps({"machine": machine, "rounds": options.rounds, "rows": rows}, indent=2))
    plot(rows, out / "bench.png")
    return 0


def split_benchmark(n: int, stacks: int, parallel: int, out: pathlib.Path) -> int:
    import shutil
    import subprocess

    import yaml

    deploy = [sys.executable, str(ROOT / "scripts" / "deploy.py")]
    env = {**os.environ, "PULUMI_CONFIG_PASSPHRASE": "bench-passphrase"}
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-split-") as folder:
        work = pathlib.Path(folder)
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

        def run(label: str, *args: str) -> None:
            start = time.perf_counter()
            done = subprocess.run([*deploy, *args, "--work-dir", str(work)], env=env, capture_output=True, text=True)
            results[label] = time.perf_counter() - start
            if done.returncode != 0:
                raise SystemExit(f"{label} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
            print(f"{label}: {results[label]:.1f} s", flush=True)

        fleet = ("--stacks", "split-*", "--parallel", str(parallel))
        run("single preview", "preview", "--stack", "single")
        run("fleet preview", "preview", *fleet)
        run("single up", "up", "--stack", "single")
        run("fleet up", "up", *fleet)
    rows = [
        {
            "operation": op,
            "single_s": round(results[f"single {op}"], 1),
            "fleet_s": round(results[f"fleet {op}"], 1),
            "ratio": round(results[f"fleet {op}"] / results[f"single {op}"], 2),
        }
        for op in ("preview", "up")
    ]
    print(f"\n{n} connectors: 1 stack against {stacks} stacks of {-(-n // stacks)} with {parallel} workers")
    for row in rows:
        print(f"{row['operation']:<8} single {row['single_s']:>7.1f} s  fleet {row['fleet_s']:>7.1f} s  ratio {row['ratio']:.2f}")
    out.mkdir(parents=True, exist_ok=True)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    summary = {"machine": machine, "connectors": n, "stacks": stacks, "parallel": parallel, "rows": rows}
    (out / "split.json").write_text(json.dumps(summary, indent=2))
    return 0


def plot(rows: list[dict[str, Any]], path: pathlib.Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    figure, axes = plt.subplots(figsize=(8, 5))
    for operation in OPERATIONS:
        points = sorted((r["n"], r["hand_written_s"], r["component_s"]) for r in rows if r["operation"] == operation)
        sizes = [p[0] for p in points]
        axes.plot(sizes, [p[1] for p in points], marker="o", linestyle="--", label=f"hand-written {operation}")
        axes.plot(sizes, [p[2] for p in points], marker="o", label=f"component {operation}")
    axes.set_xlabel("connectors in the stack")
    axes.set_ylabel("seconds")
    axes.set_title("Pulumi engine, render mode: component vs hand-written")
    axes.legend()
    figure.savefig(path, dpi=100)
    print(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
