"""P1 and growth: the component against the hand-written objects, and the same under a bare
component, for each size, interleaved in one process (see ``scripts/bench/__init__``)."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import tempfile
from collections.abc import Sequence
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

OPERATIONS = ("preview", "up", "noop_up")
VARIANTS = ("hand-written", "hand-written-in-component", "component")


def hand_written_program() -> None:
    """The same objects as the component renders, created directly with pulumi_kubernetes: no
    component, no validation, no outputs. The objects are written out from the renderer once,
    outside the program (``plain_objects``), so both variants apply identical objects (the
    benchmark compares the rendered files).

    With ``connectors:inBareComponent`` true, each connector's objects are children of a bare
    component (a ``ComponentResource`` subclass with no inputs and empty outputs that creates its
    children in its constructor, as Pulumi's documentation writes one): what one component per
    connector costs in Pulumi itself, apart from anything this project's component does."""
    import pulumi
    import pulumi_kubernetes as k8s

    def create(name: str, objects: dict[str, Any], opts: pulumi.ResourceOptions) -> None:
        account = k8s.core.v1.ServiceAccount(name, metadata=objects["service_account"]["metadata"], opts=opts)
        k8s.core.v1.Service(name, metadata=objects["service"]["metadata"], spec=objects["service"]["spec"], opts=opts)
        k8s.apps.v1.Deployment(
            name,
            metadata=objects["deployment"]["metadata"],
            spec=objects["deployment"]["spec"],
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[account])),
        )
        policy = objects["network_policy"]
        k8s.networking.v1.NetworkPolicy(name, metadata=policy["metadata"], spec=policy["spec"], opts=opts)

    class BareConnector(pulumi.ComponentResource):
        # A subclass, as components are written: the SDK records the stack of the third
        # ``__init__`` up, so an instance of ComponentResource itself would carry no stack
        # trace in state and cost less than any real component.
        def __init__(self, name: str, objects: dict[str, Any], provider: pulumi.ProviderResource) -> None:
            super().__init__("bench:index:BareConnector", name)
            create(name, objects, pulumi.ResourceOptions(provider=provider, parent=self))
            self.register_outputs({})

    config = pulumi.Config("connectors")
    provider = k8s.Provider("render", render_yaml_to_directory=config.require("renderDirectory"))
    in_component = config.get_bool("inBareComponent") or False
    for objects in json.loads(pathlib.Path(config.require("plainObjectsFile")).read_text()):
        name = objects["deployment"]["metadata"]["name"]
        if in_component:
            BareConnector(name, objects, provider)
        else:
            create(name, objects, pulumi.ResourceOptions(provider=provider))


def library_program() -> None:
    """The component as a user's own Pulumi program uses the library: one ``ConnectorComponent``
    per connector, rendering through a Kubernetes provider (no stack config of entries, no
    stack outputs)."""
    import pulumi
    import pulumi_kubernetes as k8s

    from components import ConnectorComponent
    from components.args.connector_spec import ConnectorEntry

    config = pulumi.Config("connectors")
    provider = k8s.Provider("render", render_yaml_to_directory=config.require("renderDirectory"))
    for entry in json.loads(config.require("connectors")):
        args = ConnectorEntry.model_validate(entry).to_args()
        ConnectorComponent(entry["name"], args, opts=pulumi.ResourceOptions(providers={"kubernetes": provider}))


def plain_objects(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each connector's four objects as the component creates them (rendered, checksum stamped,
    every object's metadata owned by the program)."""
    from components.args.connector_spec import ConnectorEntry
    from components.machinery.children import owned_by_the_program
    from components.render.checksum import EMPTY_CHECKSUM
    from components.render.connector import render_connector
    from components.render.objects import stamp_checksum

    result = []
    for entry in entries:
        rendered = render_connector(ConnectorEntry.model_validate(entry).to_args(), None)
        deployment = stamp_checksum(rendered.deployment, EMPTY_CHECKSUM)
        objects = {"service_account": rendered.service_account, "service": rendered.service, "deployment": deployment}
        objects["network_policy"] = rendered.network_policy
        result.append({kind: {**obj, "metadata": owned_by_the_program(obj["metadata"])} for kind, obj in objects.items()})
    return result


def run_variant(
    variant: str,
    n: int,
    folder: pathlib.Path,
    env: dict[str, str],
    sdk_defaults: bool = False,
    operations: Sequence[str] = ("preview", "up"),
) -> tuple[dict[str, float], dict[str, str]]:
    """The variant's times, and the files it rendered; ``sdk_defaults``: the component in a plain
    program of its own (``library_program``), else the main command's; ``operations``: a
    preview of the new stack, and an up followed by a no-op up."""
    from pulumi import automation as auto

    render = folder / "rendered"
    component = library_program if sdk_defaults else component_program
    program = component if variant == "component" else hand_written_program
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
    times = {"preview": timed(lambda: preview_as_deployed(stack))} if "preview" in operations else {}
    if "up" in operations:
        times["up"] = timed(stack.up)
        times["noop_up"] = timed(stack.up)
    return times, {p.name: p.read_text() for p in sorted(render.rglob("*.yaml"))}


Results = dict[str, dict[str, dict[str, list[float]]]]
"""Seconds by size, variant and operation, one per round."""


def measure(
    sizes: list[int], rounds: int, env: dict[str, str], sdk_defaults: bool = False, operations: Sequence[str] = ("preview", "up")
) -> Results:
    """Every variant at every size, the order reversed every other round; refuses to compare
    variants that rendered different objects."""
    results: Results = {}
    for n in sizes:
        for round_ in range(rounds):
            order = VARIANTS if round_ % 2 == 0 else tuple(reversed(VARIANTS))
            rendered: dict[str, dict[str, str]] = {}
            for variant in order:
                with tempfile.TemporaryDirectory(prefix="bench-") as folder:
                    times, rendered[variant] = run_variant(variant, n, pathlib.Path(folder), env, sdk_defaults, operations)
                for operation, seconds in times.items():
                    results.setdefault(str(n), {}).setdefault(variant, {}).setdefault(operation, []).append(seconds)
                print(f"n={n} {variant}: " + ", ".join(f"{op} {t:.1f} s" for op, t in times.items()), flush=True)
            if any(rendered[variant] != rendered["component"] for variant in VARIANTS):
                raise SystemExit(f"n={n}: the variants rendered different objects: not a fair comparison")
    return results


def rows_of(results: Results) -> list[dict[str, Any]]:
    """Medians and ratios, a row per size and operation; ``ratio_to_bare_spread``: the lowest and
    highest component / bare of a round (the two ran one after the other)."""
    rows = []
    for n, variants in results.items():
        for operation in (op for op in OPERATIONS if op in variants["component"]):
            hand, bare, component = (
                statistics.median(variants[v][operation]) for v in ("hand-written", "hand-written-in-component", "component")
            )
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
                    "ratio_to_bare_spread": paired_spread(
                        variants["component"][operation], variants["hand-written-in-component"][operation]
                    ),
                }
            )
    return rows


def paired_spread(component: list[float], bare: list[float]) -> list[float]:
    ratios = [c / b for c, b in zip(component, bare, strict=True)]
    return [round(min(ratios), 2), round(max(ratios), 2)]


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        f"\n{'n':>5} {'operation':<9} {'hand-written':>12} {'in bare comp.':>13} {'component':>10} {'ratio':>6} "
        f"{'bare/hand':>9} {'comp/bare':>9} {'(rounds)':>11} {'s/connector':>12}"
    )
    for row in rows:
        print(
            f"{row['n']:>5} {row['operation']:<9} {row['hand_written_s']:>11.1f}s {row['in_bare_component_s']:>12.1f}s "
            f"{row['component_s']:>9.1f}s {row['ratio']:>6.2f} {row['bare_component_ratio']:>9.2f} "
            f"{row['ratio_to_bare']:>9.2f} {'-'.join(map(str, row['ratio_to_bare_spread'])):>11} "
            f"{row['component_s_per_connector']:>12.4f}"
        )


def p1_benchmark(
    sizes: list[int],
    rounds: int,
    out: pathlib.Path,
    skip_checkpoints: bool,
    sdk_defaults: bool = False,
    operations: Sequence[str] = ("preview", "up"),
) -> int:
    """``sdk_defaults``: every variant as a user's own program runs, the SDK untuned (each
    resource's whole stack trace recorded, Python's cycle collector as it is)."""
    env = engine_environment()
    if not sdk_defaults:
        run_as_deployed()
    env["PULUMI_SKIP_CHECKPOINTS"] = os.environ.get("PULUMI_SKIP_CHECKPOINTS", "false")
    rows = rows_of(measure(sizes, rounds, env, sdk_defaults, operations))
    print_table(rows)
    suffix = ("-skip-checkpoints" if skip_checkpoints else "") + ("-sdk-defaults" if sdk_defaults else "")
    suffix += "" if set(operations) == {"preview", "up"} else "-" + "-".join(sorted(operations))
    summary = {"machine": machine(), "rounds": rounds, "skip_checkpoints": skip_checkpoints, "sdk_defaults": sdk_defaults}
    summary["operations"] = list(operations)
    summary["rows"] = rows
    write_result(out, f"bench{suffix}.json", summary)
    plot(rows, out / f"bench{suffix}.png")
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
    for operation in {row["operation"] for row in rows}:
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
