"""Change detection: an ``up`` or ``preview`` of a stack whose inputs did not change since its
last ``up`` that ended well is not run.

A stack's fingerprint is what decides a run's result, each part read by ``stack_inputs``: its
settings (the stack file and the project file), the program's code (every file of
``components/``, and the versions of Python and of the packages it imports), the tools (the
CLI's version, the plugins installed), the cluster it deploys to, the content of each Secret
and ConfigMap the last run read, and the backend's record of the stack's state (a ``refresh``,
an import, a ``pulumi up`` from another checkout or language rewrites it). It is kept beside the
stack's registration journal in the state backend (``file://``, ``postgres://``; elsewhere
every stack runs), written after an ``up`` that ended well and removed as any run that may
change the stack starts, so that a failed, cancelled or killed run forces the next one.
``--all``, ``--target``, ``--replace`` and ``--refresh`` always run. Drift in the cluster is
not an input: an ``up`` without ``--refresh`` never saw it either (``status --check`` finds it).
"""

from __future__ import annotations

import json
import pathlib
from dataclasses import dataclass
from typing import Any

from components.app.automation.pulumi_cli import Cli, cli_version
from components.app.command.runs import RunOptions
from components.app.command.stack_inputs import (
    Recorder,
    UnreadableStackFile,
    cluster_digest,
    code_digest,
    hash_of,
    installed_plugins,
    packages_digest,
    read_again,
    reads_digest,
    routes_digest,
    settings_digest,
    state_record,
    written_config,
)
from components.app.stack_files import PROJECT_FILE, stack_file
from components.args.problems import InvalidArgumentsError
from components.registration import journal

KEY = "stack-fingerprint"
"""The fingerprint's key among the journal's entries (theirs are digests: no clash)."""
STATUS = "fingerprint"
PARTS = {
    "settings": "its stack file or Pulumi.yaml changed",
    "code": "the program's code changed",
    "packages": "a Python package of the program changed version",
    "cli": "the pulumi CLI changed version",
    "plugins": "the plugins installed changed",
    "cluster": "the cluster it deploys to changed (its kubeconfig or context)",
    "references": "a referenced Secret or ConfigMap changed",
    "routes": "an in-cluster platform address now resolves here, or no longer does (a registration's route)",
    "state": "its state changed since (a refresh, an import, or a run from elsewhere)",
}
"""Each part of the fingerprint, and the reason a run gives when it alone changed."""


@dataclass(frozen=True)
class Place:
    """Where a stack's run keeps its fingerprint: the work dir, the backend, the CLI, the project."""

    work_dir: pathlib.Path
    backend: str
    cli: Cli
    project: str

    def store(self, stack: str) -> journal.Journal | None:
        return journal.open_journal(self.backend, f"{self.project}/{stack}") if journal.supports(self.backend) else None


def inputs_of(place: Place, stack: str) -> dict[str, Any]:
    """The parts of the fingerprint a run starts from (read before it starts: an edit made while
    it runs is not taken for one it applied); the plugins as the names of those installed
    (``fingerprint`` keeps their digest)."""
    settings = stack_file(place.work_dir, stack)
    config = written_config(settings)
    version = place.cli.version or cli_version(str(place.cli.bin_dir / "pulumi"))
    return {
        "settings": settings_digest(settings, place.work_dir / PROJECT_FILE),
        "cluster": cluster_digest(config, place.work_dir),
        "routes": routes_digest(config),
        "code": code_digest(),
        "packages": packages_digest(),
        "cli": ".".join(map(str, version or ())),
        "plugins": installed_plugins(place.cli),
    }


def starting_inputs(place: Place, stack: str) -> dict[str, Any] | None:
    """The inputs an ``up`` starts from, when its backend keeps fingerprints and they can be read."""
    if place.store(stack) is None:
        return None
    try:
        return inputs_of(place, stack)
    except Exception:  # whatever it is, the run says it (none kept: the next up runs)
        return None


def fingerprint(place: Place, stack: str, reads: dict[str, str], before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole fingerprint: the inputs (``before``, or read now), the referenced objects' digests
    and the backend's record of the stack."""
    inputs = before if before is not None else inputs_of(place, stack)
    plugins = hash_of(*inputs["plugins"])
    return {**inputs, "plugins": plugins, "references": reads, "state": state_record(place.backend, place.project, stack)}


def ran_with(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any] | None:
    """The inputs a run ran with: those it started from, with the plugins installed while it ran
    (the engine installs a provider plugin it lacks as it first loads it: a first run's Kubernetes
    plugin); None when anything else changed while it ran (the stack file edited, the code pulled,
    a plugin removed), so that what it applied is not taken for what is there now."""
    changed = [part for part in before if part != "plugins" and after.get(part) != before[part]]
    if changed or not set(before["plugins"]) <= set(after["plugins"]):
        return None
    return {**before, "plugins": after["plugins"]}


def always_runs(options: RunOptions) -> bool:
    return bool(options.run_all or options.target or options.replace or options.refresh)


def reason_to_run(place: Place, options: RunOptions) -> str | None:
    """Why this ``up`` or ``preview`` must run; None when its inputs are those of its last good ``up``."""
    store = place.store(options.stack)
    if store is None:
        return "its backend keeps no fingerprint"
    try:
        entry = store.get(KEY)
    except journal.JournalError:
        return "its fingerprint could not be read"
    if entry is None:
        return "no up of it has ended well since it last changed"
    try:
        kept = json.loads(entry.matches)
    except ValueError:
        kept = None
    if not isinstance(kept, dict):
        return "its fingerprint could not be read"
    try:
        settings = written_config(stack_file(place.work_dir, options.stack))
        references = kept.get("references")
        reads = read_again(sorted(references if isinstance(references, dict) else {}), settings, place.work_dir)
        if reads is None:
            return "the Secrets and ConfigMaps it references cannot be read before the run"
        now = fingerprint(place, options.stack, reads_digest(reads))
    except journal.JournalError:
        return "the backend's record of its state could not be read"
    except (InvalidArgumentsError, UnreadableStackFile, ValueError, OSError):
        return "its settings are refused (the run says why)"
    changed = [part for part in PARTS if now.get(part) != kept.get(part)]
    return PARTS[changed[0]] if changed else None


def forget(place: Place, stack: str) -> None:
    """As a run that may change the stack starts: until it ends well, the next one runs. A
    fingerprint that cannot be removed stops the run (``journal.JournalError``): left in place it
    could skip the next one."""
    store = place.store(stack)
    if store is None:
        return
    try:
        store.remove(KEY)
    except OSError as error:
        raise journal.JournalError(f"the stack's fingerprint could not be removed ({type(error).__name__})") from None


def remember(place: Place, stack: str, recorder: Recorder, before: dict[str, Any]) -> None:
    """After an ``up`` that ended well (its state saved), with the inputs it started from
    (``inputs_of`` before it ran): the inputs it ran with are kept (``ran_with``: the plugins it
    installed count as its own); when others changed while it ran, none is kept and the next runs."""
    store = place.store(stack)
    if store is None:
        return
    try:
        inputs = ran_with(before, inputs_of(place, stack))
        if inputs is None:
            print(f"stack {stack}: its inputs changed while it ran: its next up runs in full")
            return
        kept = fingerprint(place, stack, reads_digest(recorder.reads), inputs)
        store.put(KEY, journal.Entry("", STATUS, json.dumps(kept, sort_keys=True)))
    except (journal.JournalError, OSError, ImportError, InvalidArgumentsError, TypeError, UnreadableStackFile) as error:
        print(f"warning: the fingerprint of stack {stack} was not kept ({type(error).__name__}): its next up runs in full")
