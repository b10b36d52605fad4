"""``connectors status --check --stack S``: every problem of a stack between runs, one line each,
for a schedule to alert on: a connector or proxy not Ready, a connector not Healthy, a
registration its stack expects missing from state, and drift (what ``preview --refresh
--expect-no-changes`` finds: live objects that no longer match the stack). ``--json`` prints
the same for machines. It changes nothing: the preview's refresh is not saved, the platform is
only read. Exit codes: 0 no problem, 1 problems, 4 no cluster could be reached (or the stack
renders to a folder: nothing live to check).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from pulumi import automation as auto

from components.app.automation.engine_messages import cli_error
from components.app.command.runs import RunOptions
from components.app.command.stack_status import MISSING, Live, observe
from components.args.problems import InvalidArgumentsError
from components.registration.contract import FILL_THE_UUID, UUID_UNKNOWN
from components.type_tokens import COMPONENTS

NO_CLUSTER = 4
UNCHANGED = {"same", "read", "refresh", "discard"}
PAST = {"create": "created", "update": "updated", "delete": "deleted", "replace": "replaced", "create-replacement": "replaced"}


@dataclass(frozen=True)
class Problem:
    entry: str
    problem: str
    detail: str

    def line(self) -> str:
        return f"{self.entry}: {self.problem} ({self.detail})"


def workload_problems(live: Live) -> list[Problem]:
    """Not Ready, not Healthy, a registration missing: from the state, the config and the cluster."""
    found = []
    for row in live.rows:
        entry = f"{row.kind} {row.name}"
        if row.kind == "platform":
            if row.status == "Progressing":
                found.append(Problem(entry, "not Running", f"not ready: {row.health}"))
            elif row.health != "-":
                found.append(Problem(entry, "not Ready", f"not ready: {row.health}"))
            continue
        if row.ready == MISSING:
            found.append(Problem(entry, "not Ready", "its Deployment is not in the cluster"))
        elif row.ready != "-":
            counts, _, reasons = row.ready.partition(":")
            ready, desired = (int(n) for n in counts.split("/"))
            if ready < desired:
                why = f": {reasons.replace(',', ', ')}" if reasons else ""
                found.append(Problem(entry, "not Ready", f"{ready} of {desired} replicas ready{why}"))
        if row.health.startswith("Down"):
            found.append(Problem(entry, "not Healthy", row.health.removeprefix("Down (").removesuffix(")")))
        if row.kind == "connector" and row.name in live.expects_registration and row.uuid == "-":
            found.append(Problem(entry, "not registered", "the stack expects a registration and its state has none"))
        if row.uuid == UUID_UNKNOWN:
            found.append(
                Problem(entry, "uuid unknown", f"the platform holds the record an interrupted run posted: {FILL_THE_UUID}")
            )
    return found


def owner_of(urn: str) -> str:
    """``connector <name>`` for a resource of a component (its name is the entry's), else the name."""
    types, name = urn.split("::")[2].split("$"), urn.rsplit("::", 1)[-1]
    component = next((COMPONENTS[t] for t in types if t in COMPONENTS), None)
    return f"{component} {name}" if component else name


def drift(stack: Any) -> list[Problem]:
    """What a preview against the live objects would change, by resource (names, never values)."""
    steps: dict[str, tuple[Any, set[str]]] = {}

    def on_event(event: Any) -> None:
        for step in (event.resource_pre_event, event.res_outputs_event):
            if step is None or step.metadata.op.value in UNCHANGED:
                continue
            meta = step.metadata
            steps.setdefault(meta.urn, (meta, set()))[1].update([*(meta.diffs or []), *(meta.detailed_diff or {})])

    stack.preview(refresh=True, diff=True, on_event=on_event)  # the diff's paths only: no output is shown
    found = []
    for urn, (meta, fields) in steps.items():
        kind, name, op = meta.type.rsplit(":", 1)[-1], urn.rsplit("::", 1)[-1], meta.op.value
        if op == "create":
            detail = f"{kind} {name} is not in the cluster: it would be created"
        else:
            detail = f"{kind} {name} would be {PAST.get(op, op)}: {', '.join(sorted(fields)) or 'the whole object'}"
        found.append(Problem(owner_of(urn), "drift", detail))
    return found


def check(options: RunOptions) -> int:
    try:
        stack, live = observe(options)
        if live.render_mode or live.cluster_unreachable:
            why = "it renders to a folder" if live.render_mode else "the cluster could not be reached"
            report(options, [], f"stack {options.stack}: nothing live to check: {why}")
            return NO_CLUSTER
        problems = workload_problems(live) + drift(stack)
    except auto.CommandError as error:
        print(f"connectors: stack {options.stack}: {cli_error(error)}")
        return 1
    except InvalidArgumentsError as error:
        print(f"connectors: stack {options.stack}: {error}")
        return 2
    report(options, problems, f"stack {options.stack}: {len(problems) or 'no'} problems")
    return 1 if problems else 0


def report(options: RunOptions, problems: list[Problem], summary: str) -> None:
    if options.json:
        print(json.dumps({"stack": options.stack, "summary": summary, "problems": [asdict(p) for p in problems]}))
        return
    for problem in problems:
        print(problem.line())
    print(summary)
