"""Benchmark: the component against a hand-written program of the same objects, through the
real engine (Automation API inline, render mode, a ``file://`` backend in a temporary folder).

    python scripts/bench.py [--sizes 10 100 300] [--rounds 1] [--out bench-results]
    python scripts/bench.py --split 200 --split-stacks 8 --parallel 4 [--out bench-results]

For each size n, three variants run interleaved in the same process: the hand-written program,
the same program with each connector's objects under a bare component (a ``ComponentResource``
subclass: what one component per connector costs in Pulumi itself), and the component. Each runs preview (as
``deploy.py preview`` runs it, without checkpoints), first up, no-op up. Prints a table (seconds,
the component / hand-written ratio, bare component / hand-written, component / bare component,
seconds per connector) and writes ``<out>/bench.json`` and, when matplotlib is installed,
``<out>/bench.png`` (seconds against n, one line per variant and operation). Never part of
``make test``; no test asserts a time. (P1 and growth of issue #14.)

``--registrations``: P2, a no-op rerun of 100 connectors with registrations (changes and
platform requests, which must both be 0), and P3, 50 connectors registering against the
platform stand-in answering after 1 s each: exactly 50 requests, the registration phase's wall
time against the serial sum, and how many requests were in flight at once. Writes
``<out>/registrations.json``.

``--ready-latency``: P4, on the local cluster (``scripts/install-cluster-tools``): 10 connectors
registering; for each, the time from when a watch on its Deployment first sees it Available to
the registration request reaching the platform stand-in (median and max), and a timeline per
connector (Available, the engine's Deployment step done, the request). Writes
``<out>/ready-latency.json``.

``--split N``: one stack of N connectors against the same N as ``--split-stacks`` stacks run by
the fleet command (``deploy.py <op> --stacks 'split-*' --parallel P``), side by side in one
run, through ``scripts/deploy.py`` for both (the same process start-up on each side): preview
and up, the ratio fleet / single, each side's CPU time, and the floor: the single stack's CPU
time spread over every core, against its wall time (a split can beat it only by doing less work
in all, as ``up`` does: its checkpoints cost the square of a stack's size). State in
``PULUMI_BACKEND_URL`` when set (e.g. the team's PostgreSQL), else a ``file://`` folder.
Writes ``<out>/split.json``.
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
VARIANTS = ("hand-written", "hand-written-in-component", "component")


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
    """The same objects as the component renders, created directly with pulumi_kubernetes: no
    component, no validation, no outputs. The objects are written out from the renderer once,
    outside the program (``plain_objects``), so both variants apply identical objects (the
    benchmark compares the rendered files).

    With ``connectors:inBareComponent`` true, each connector's objects are children of a bare
    component (a ``ComponentResource`` subclass with no inputs and empty outputs, as Pulumi's
    documentation writes one): what one component per connector costs in Pulumi itself, apart
    from anything this project's component does."""
    import pulumi
    import pulumi_kubernetes as k8s

    class BareConnector(pulumi.ComponentResource):
        # A subclass, as components are written: the SDK records the stack of the third
        # ``__init__`` up, so an instance of ComponentResource itself would carry no stack
        # trace in state and cost less than any real component.
        def __init__(self, name: str) -> None:
            super().__init__("bench:index:BareConnector", name)

    config = pulumi.Config("connectors")
    provider = k8s.Provider("render", render_yaml_to_directory=config.require("renderDirectory"))
    in_component = config.get_bool("inBareComponent") or False
    for objects in json.loads(pathlib.Path(config.require("plainObjectsFile")).read_text()):
        name = objects["deployment"]["metadata"]["name"]
        parent = BareConnector(name) if in_component else None
        opts = pulumi.ResourceOptions(provider=provider, parent=parent)
        account = k8s.core.v1.ServiceAccount(name, metadata=objects["service_account"]["metadata"], opts=opts)
        k8s.core.v1.Service(name, metadata=objects["service"]["metadata"], spec=objects["service"]["spec"], opts=opts)
        k8s.apps.v1.Deployment(
            name,
            metadata=objects["deployment"]["metadata"],
            spec=objects["deployment"]["spec"],
            opts=pulumi.ResourceOptions(provider=provider, parent=parent, depends_on=[account]),
        )
        policy = objects["network_policy"]
        k8s.networking.v1.NetworkPolicy(name, metadata=policy["metadata"], spec=policy["spec"], opts=opts)
        if parent is not None:
            parent.register_outputs({})


def plain_objects(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each connector's four objects as the component creates them (rendered, checksum stamped,
    every object's metadata owned by the program)."""
    from components.args import ConnectorEntry
    from components.checksum import EMPTY_CHECKSUM
    from components.children import owned_by_the_program
    from components.render.connector import render_connector
    from components.render.objects import stamp_checksum

    result = []
    for entry in entries:
        rendered = render_connector(ConnectorEntry.model_validate(entry).to_args())
        deployment = stamp_checksum(rendered.deployment, EMPTY_CHECKSUM)
        objects = {"service_account": rendered.service_account, "service": rendered.service, "deployment": deployment}
        objects["network_policy"] = rendered.network_policy
        result.append({kind: {**obj, "metadata": owned_by_the_program(obj["metadata"])} for kind, obj in objects.items()})
    return result


def component_program() -> None:
    from components.program import connectors_program

    connectors_program()


def timed(operation: Callable[[], Any]) -> float:
    start = time.perf_counter()
    operation()
    return time.perf_counter() - start


def inline_stack(name: str, program: Callable[[], None], folder: pathlib.Path, env: dict[str, str]) -> Any:
    """A new stack of an inline program, its work folder and ``file://`` state under ``folder``."""
    from scripts.engine_tools import create_inline_stack

    work, state = folder / "work", folder / "state"
    for path in (work, state):
        path.mkdir(parents=True)
    return create_inline_stack(name, program, work, {**env, "PULUMI_BACKEND_URL": f"file://{state}"})


def registering(entries: list[dict[str, Any]], platform_url: str) -> list[dict[str, Any]]:
    """The entries, each registering under its own name at ``platform_url``."""
    for entry in entries:
        entry["spec"]["registration"] = {"platformUrl": platform_url, "name": entry["name"], "authType": "none"}
    return entries


def preview_as_deployed(stack: Any) -> Any:
    """A preview as ``deploy.py preview`` runs it: without checkpoints (it saves no state)."""
    from scripts.deploy import skips_checkpoints

    env = stack.workspace.env_vars
    before = env.get("PULUMI_SKIP_CHECKPOINTS")
    env["PULUMI_SKIP_CHECKPOINTS"] = str(skips_checkpoints("preview", before == "true")).lower()
    try:
        return stack.preview()
    finally:
        if before is None:
            del env["PULUMI_SKIP_CHECKPOINTS"]
        else:
            env["PULUMI_SKIP_CHECKPOINTS"] = before


def run_variant(variant: str, n: int, folder: pathlib.Path, env: dict[str, str]) -> tuple[dict[str, float], dict[str, str]]:
    """The variant's times, and the files it rendered."""
    from pulumi import automation as auto

    render = folder / "rendered"
    program = component_program if variant == "component" else hand_written_program
    stack = inline_stack(f"bench-{n}", program, folder, env)
    stack.set_config("connectors:renderDirectory", auto.ConfigValue(str(render)))
    if variant != "component":
        objects_file = folder / "plain-objects.json"
        objects_file.write_text(json.dumps(plain_objects(connectors(n))))
        stack.set_config("connectors:plainObjectsFile", auto.ConfigValue(str(objects_file)))
        in_component = "true" if variant == "hand-written-in-component" else "false"
        stack.set_config("connectors:inBareComponent", auto.ConfigValue(in_component))
    else:
        stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(connectors(n))))
    times = {
        "preview": timed(lambda: preview_as_deployed(stack)),
        "up": timed(stack.up),
        "noop_up": timed(stack.up),
    }
    return times, {p.name: p.read_text() for p in sorted(render.rglob("*.yaml"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 2)
    options = parser.parse_args(argv)
    if options.skip_checkpoints:
        os.environ["PULUMI_SKIP_CHECKPOINTS"] = "true"
    if options.registrations:
        return registration_benchmark(pathlib.Path(options.out), options.engine_parallel)
    if options.ready_latency:
        return ready_latency_benchmark(pathlib.Path(options.out))
    if options.split:
        return split_benchmark(
            options.split, options.split_stacks, options.parallel, pathlib.Path(options.out), options.split_operations
        )

    from scripts.engine_tools import engine_env, tools_bin

    env = engine_env(tools_bin(), "bench-passphrase")
    os.environ.update(env)
    env["PULUMI_SKIP_CHECKPOINTS"] = os.environ.get("PULUMI_SKIP_CHECKPOINTS", "false")
    results: dict[str, dict[str, dict[str, list[float]]]] = {}
    for n in options.sizes:
        for round_ in range(options.rounds):
            order = VARIANTS if round_ % 2 == 0 else tuple(reversed(VARIANTS))
            rendered: dict[str, dict[str, str]] = {}
            for variant in order:
                with tempfile.TemporaryDirectory(prefix="bench-") as folder:
                    times, rendered[variant] = run_variant(variant, n, pathlib.Path(folder), env)
                for operation, seconds in times.items():
                    results.setdefault(str(n), {}).setdefault(variant, {}).setdefault(operation, []).append(seconds)
                print(f"n={n} {variant}: " + ", ".join(f"{op} {t:.1f} s" for op, t in times.items()), flush=True)
            if any(rendered[variant] != rendered["component"] for variant in VARIANTS):
                raise SystemExit(f"n={n}: the variants rendered different objects: not a fair comparison")

    rows = []
    for n, variants in results.items():
        for operation in OPERATIONS:
            hand = statistics.median(variants["hand-written"][operation])
            bare = statistics.median(variants["hand-written-in-component"][operation])
            component = statistics.median(variants["component"][operation])
            rows.append(
                {
                    "n": int(n),
                    "operation": operation,
                    "hand_written_s": round(hand, 2),
                    "in_bare_component_s": round(bare, 2),
                    "component_s": round(component, 2),
                    "ratio": round(component / hand, 2),
                    "bare_component_ratio": round(bare / hand, 2),
                    "ratio_to_bare": round(component / bare, 2),
                    "component_s_per_connector": round(component / int(n), 4),
                }
            )
    print(
        f"\n{'n':>5} {'operation':<9} {'hand-written':>12} {'in bare comp.':>13} {'component':>10} {'ratio':>6} "
        f"{'bare/hand':>9} {'comp/bare':>9} {'s/connector':>12}"
    )
    for row in rows:
        print(
            f"{row['n']:>5} {row['operation']:<9} {row['hand_written_s']:>11.1f}s {row['in_bare_component_s']:>12.1f}s "
            f"{row['component_s']:>9.1f}s {row['ratio']:>6.2f} {row['bare_component_ratio']:>9.2f} "
            f"{row['ratio_to_bare']:>9.2f} {row['component_s_per_connector']:>12.4f}"
        )
    out = pathlib.Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    machine = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    suffix = "-skip-checkpoints" if options.skip_checkpoints else ""
    summary = {"machine": machine, "rounds": options.rounds, "skip_checkpoints": options.skip_checkpoints, "rows": rows}
    (out / f"bench{suffix}.json").write_text(json.dumps(summary, indent=2))
    plot(rows, out / f"bench{suffix}.png")
    return 0


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


def registration_benchmark(out: pathlib.Path, parallel: int | None) -> int:
    from scripts.engine_tools import engine_env, tools_bin
    from tests.platform_double import platform_double

    env = engine_env(tools_bin(), "bench-passphrase")
    os.environ.update(env)
    options = {"parallel": parallel} if parallel else {}
    summary: dict[str, Any] = {"engine_parallel": parallel or "default"}
    with platform_double() as double, tempfile.TemporaryDirectory(prefix="bench-p2-") as folder:
        stack = registering_stack(100, double.url, pathlib.Path(folder), env)
        stack.up(**options)
        first = len(double.calls)
        start = time.perf_counter()
        rerun = stack.up(**options)
        changes = {op: n for op, n in (rerun.summary.resource_changes or {}).items() if op != "same" and n}
        summary["p2"] = {
            "n": 100,
            "registrations": len(double.requests),
            "noop_up_s": round(time.perf_counter() - start, 1),
            "noop_changes": changes,
            "noop_platform_requests": len(double.calls) - first,
        }
    print(f"P2: {summary['p2']}", flush=True)
    delay, n = 1.0, 50
    with platform_double() as double, tempfile.TemporaryDirectory(prefix="bench-p3-") as folder:
        double.register_delay = delay
        stack = registering_stack(n, double.url, pathlib.Path(folder), env)
        start = time.perf_counter()
        stack.up(**options)
        up_s = time.perf_counter() - start
        arrivals = [t.timestamp() for t in double.register_times]
        phase = max(arrivals) + delay - min(arrivals)
        summary["p3"] = {
            "n": n,
            "requests": len(double.requests),
            "platform_answer_s": delay,
            "up_s": round(up_s, 1),
            "registration_phase_s": round(phase, 1),
            "serial_sum_s": n * delay,
            "fraction_of_serial": round(phase / (n * delay), 3),
            "most_in_flight": most_at_once(arrivals, delay),
        }
    print(f"P3: {summary['p3']}", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    summary["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}
    (out / "registrations.json").write_text(json.dumps(summary, indent=2))
    return 0


def ready_latency_benchmark(out: pathlib.Path, n: int = 10) -> int:
    import threading

    from kubernetes import client, watch
    from pulumi import automation as auto

    from scripts.engine_tools import engine_env, tools_bin
    from tests.cluster.local_cluster import local_cluster
    from tests.platform_double import platform_double

    env = engine_env(tools_bin(), "bench-passphrase")
    os.environ.update(env)
    available: dict[str, float] = {}
    deployed: dict[str, float] = {}
    """When the engine reports each Deployment's create step done (its event reaches this process)."""
    rolled_out: dict[str, float] = {}
    """When the rollout is complete (Progressing: NewReplicaSetAvailable), what Pulumi's wait needs."""
    with tempfile.TemporaryDirectory(prefix="bench-p4-") as folder, local_cluster(pathlib.Path(folder) / "cluster") as cluster:
        api = cluster.api()
        client.CoreV1Api(api).create_namespace({"metadata": {"name": "bench"}})
        stop = threading.Event()

        def watch_deployments() -> None:
            stream = watch.Watch()
            for event in stream.stream(client.AppsV1Api(api).list_namespaced_deployment, "bench", timeout_seconds=600):
                deployment = event["object"]
                conditions = deployment.status.conditions or []
                if any(c.type == "Available" and c.status == "True" for c in conditions):
                    available.setdefault(deployment.metadata.name, time.time())
                if any(c.type == "Progressing" and c.reason == "NewReplicaSetAvailable" for c in conditions):
                    rolled_out.setdefault(deployment.metadata.name, time.time())
                if stop.is_set():
                    stream.stop()

        watcher = threading.Thread(target=watch_deployments, daemon=True)
        watcher.start()
        with platform_double() as double:
            stack = inline_stack("bench-ready", component_program, pathlib.Path(folder) / "stack", env)
            entries = registering(connectors(n), double.url)
            stack.set_config("connectors:kubeconfig", auto.ConfigValue(str(cluster.kubeconfig)))
            stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(entries)))

            def step_done(event: Any) -> None:
                outputs = event.res_outputs_event
                if outputs is not None and outputs.metadata.type == "kubernetes:apps/v1:Deployment":
                    deployed[outputs.metadata.urn.rsplit("::", 1)[-1]] = time.time()

            stack.up(on_event=step_done)
            registered = {body["name"]: t.timestamp() for body, t in zip(double.requests, double.register_times, strict=True)}
            stop.set()
            stack.destroy()
    delays = sorted(registered[name] - available[name] for name in registered)
    after_rollout = sorted(registered[name] - rolled_out[name] for name in registered if name in rolled_out)
    summary = {
        "n": n,
        "after_rollout_complete_s": [round(d, 3) for d in after_rollout],
        "median_s": round(statistics.median(delays), 3),
        "max_s": round(max(delays), 3),
        "delays_s": [round(d, 3) for d in delays],
        "timeline": {
            name: {
                "available": round(available[name], 3),
                "deployment_step_done": round(deployed[name], 3) if name in deployed else None,
                "registered": round(registered[name], 3),
            }
            for name in sorted(registered)
        },
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }
    print(f"P4: Available to registration over {n} connectors: median {summary['median_s']} s, max {summary['max_s']} s")
    out.mkdir(parents=True, exist_ok=True)
    (out / "ready-latency.json").write_text(json.dumps(summary, indent=2))
    return 0


def children_cpu_s() -> float:
    """CPU seconds (user and system) of this process's finished children and their descendants."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def split_benchmark(n: int, stacks: int, parallel: int, out: pathlib.Path, operations: list[str]) -> int:
    """Also measures each side's CPU time: the single stack's CPU spread over every core is the
    least wall time in which the same work can be done (``floor_ratio``, against the single
    stack's wall time), before the fixed cost each further stack adds; a split does better
    only where it does less work in all."""
    import shutil
    import subprocess

    import yaml

    deploy = [sys.executable, str(ROOT / "scripts" / "deploy.py")]
    env = {**os.environ, "PULUMI_CONFIG_PASSPHRASE": "bench-passphrase"}
    results: dict[str, float] = {}
    cpu: dict[str, float] = {}
    cpus = os.cpu_count() or 1
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
            start, start_cpu = time.perf_counter(), children_cpu_s()
            done = subprocess.run([*deploy, *args, "--work-dir", str(work)], env=env, capture_output=True, text=True)
            results[label] = time.perf_counter() - start
            cpu[label] = children_cpu_s() - start_cpu
            if done.returncode != 0:
                raise SystemExit(f"{label} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
            print(f"{label}: {results[label]:.1f} s, {cpu[label]:.1f} s CPU", flush=True)

        fleet = ("--stacks", "split-*", "--parallel", str(parallel))
        for operation in operations:
            run(f"single {operation}", operation, "--stack", "single")
            run(f"fleet {operation}", operation, *fleet)
    rows = [
        {
            "operation": op,
            "single_s": round(results[f"single {op}"], 1),
            "fleet_s": round(results[f"fleet {op}"], 1),
            "ratio": round(results[f"fleet {op}"] / results[f"single {op}"], 2),
            "single_cpu_s": round(cpu[f"single {op}"], 1),
            "fleet_cpu_s": round(cpu[f"fleet {op}"], 1),
            "floor_ratio": round(cpu[f"single {op}"] / cpus / results[f"single {op}"], 2),
        }
        for op in operations
    ]
    print(f"\n{n} connectors: 1 stack against {stacks} stacks of {-(-n // stacks)} with {parallel} workers, {cpus} CPUs")
    for row in rows:
        print(
            f"{row['operation']:<8} single {row['single_s']:>7.1f} s ({row['single_cpu_s']:.1f} s CPU)  "
            f"fleet {row['fleet_s']:>7.1f} s ({row['fleet_cpu_s']:.1f} s CPU)  ratio {row['ratio']:.2f}  "
            f"floor {row['floor_ratio']:.2f}"
        )
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
        points = sorted(
            (r["n"], r["hand_written_s"], r["in_bare_component_s"], r["component_s"]) for r in rows if r["operation"] == operation
        )
        sizes = [p[0] for p in points]
        axes.plot(sizes, [p[1] for p in points], marker="o", linestyle="--", label=f"hand-written {operation}")
        axes.plot(sizes, [p[2] for p in points], marker="o", linestyle=":", label=f"in bare component {operation}")
        axes.plot(sizes, [p[3] for p in points], marker="o", label=f"component {operation}")
    axes.set_xlabel("connectors in the stack")
    axes.set_ylabel("seconds")
    axes.set_title("Pulumi engine, render mode: component vs hand-written")
    axes.legend()
    figure.savefig(path, dpi=100)
    print(f"plot: {path}")


if __name__ == "__main__":
    sys.exit(main())
