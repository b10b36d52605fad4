"""Change detection: an ``up`` or ``preview`` of a stack whose inputs did not change since its
last ``up`` that ended well is not run.

A stack's fingerprint is what decides a run's result: its settings (the stack file and the
project file), the program's code (every file of ``components/``, and the
versions of Python and of the packages it imports), the tools (the CLI's version, the plugins
installed), the cluster it deploys to (``cluster_digest``), the content of each Secret and
ConfigMap the last run read, and the backend's record of the stack's state (a ``refresh``, an
import, a ``pulumi up`` from another checkout or language rewrites it). It is kept beside the
stack's registration journal in the state backend (``file://``, ``postgres://``; elsewhere
every stack runs), written after an ``up`` that ended well and removed as any run that may
change the stack starts, so that a failed, cancelled or killed run forces the next one.
``--all``, ``--target``, ``--replace`` and ``--refresh`` always run. Drift in the cluster is
not an input: an ``up`` without ``--refresh`` never saw it either (``status --check`` finds it).
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import yaml

from components.args.problems import InvalidArgumentsError
from components.command.pulumi_cli import CHECKOUT, Cli, cli_version
from components.command.runs import RunOptions
from components.reference_reader import ClusterReader, Reference, ReferenceReader
from components.registration import journal
from components.stack_config import cluster_of
from components.stack_files import PROJECT_FILE, stack_file

CODE = ("components",)
PACKAGES = (
    "pulumi",
    "pulumi_kubernetes",
    "pydantic",
    "httpx",
    "kubernetes",
    "kubernetes-validate",
    "jsonschema",
    "PyYAML",
    "psycopg",
)
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
    "state": "its state changed since (a refresh, an import, or a run from elsewhere)",
}
"""Each part of the fingerprint, and the reason a run gives when it alone changed."""


def digest(*parts: bytes | str) -> str:
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode() if isinstance(part, str) else part)
        hashed.update(b"\0")
    return hashed.hexdigest()


def code_digest(root: pathlib.Path = CHECKOUT) -> str:
    """The program's own files: every Python file it runs (the generated SDKs left out), and
    the requirement pins."""
    files = [p for folder in CODE for p in (root / folder).rglob("*.py") if "sdk" not in p.relative_to(root).parts]
    files += [root / name for name in ("__main__.py", "requirements.txt") if (root / name).is_file()]
    return digest(*(part for p in sorted(files) for part in (str(p.relative_to(root)), p.read_bytes())))


def packages_digest() -> str:
    def version_of(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "-"

    return digest(platform.python_version(), *(f"{name}={version_of(name)}" for name in PACKAGES))


def plugins_digest(cli: Cli) -> str:
    home = pathlib.Path(cli.pulumi_home or os.environ.get("PULUMI_HOME") or pathlib.Path.home() / ".pulumi")
    return digest(*sorted(p.name for p in (home / "plugins").glob("*") if not p.name.endswith(".lock")))


def state_record(backend: str, project: str, stack: str) -> str:
    """The backend's record of the stack's state, as a digest ("" when it holds none)."""
    key = f".pulumi/stacks/{project}/{stack}.json"
    if backend.startswith("file://"):
        root = journal.file_backend_root(backend)
        for name in (key, f"{key}.gz"):
            if (root / name).is_file():
                return digest((root / name).read_bytes())
        return ""
    from components.registration.journal_postgres import state_record as in_postgres

    return in_postgres(backend, key)


def cluster_digest(settings: dict[str, Any]) -> str:
    """The cluster the stack deploys to, as the Kubernetes provider finds it: the stack's
    kubeconfig (a path's content, or the content itself) and context, else the ambient
    ``KUBECONFIG`` files or ``~/.kube/config``, or the pod's service account; nothing in render
    mode. Any change of those files counts (a refreshed token too): a run too many, never one
    too few."""
    if settings.get("connectors:renderDirectory"):
        return "render"
    given, context_given = cluster_of(settings)
    context = json.dumps(context_given, sort_keys=True)
    if isinstance(given, dict):  # kept as a secret: the stack file's ciphertext stands for it
        return digest(json.dumps(given, sort_keys=True), context)
    if given:
        path = pathlib.Path(str(given)).expanduser()
        return digest(path.read_bytes() if len(str(given)) < 4096 and path.is_file() else str(given), context)
    ambient = os.environ.get("KUBECONFIG") or str(pathlib.Path.home() / ".kube" / "config")
    files = [pathlib.Path(p) for p in ambient.split(os.pathsep) if p]
    return digest(*(f.read_bytes() for f in files if f.is_file()), os.environ.get("KUBERNETES_SERVICE_HOST", ""), context)


def stack_settings(file: pathlib.Path) -> dict[str, Any]:
    """The stack file's ``config:`` block, as written (secrets as their ciphertext)."""
    if not file.is_file():
        return {}
    document = yaml.safe_load(file.read_text()) or {}
    return dict(document.get("config") or {}) if isinstance(document, dict) else {}


def reads_digest(reads: Mapping[str, Mapping[str, str] | None]) -> dict[str, str]:
    return {ref: digest(json.dumps(data, sort_keys=True)) if data is not None else "absent" for ref, data in reads.items()}


@dataclass
class Recorder:
    """The referenced objects a run read, as the program read them (a digest of each)."""

    reads: dict[str, Mapping[str, str] | None] = field(default_factory=dict)

    def wrap(self, reader: ReferenceReader) -> ReferenceReader:
        recorder = self

        class Recording:
            def read(self, ref: Reference) -> Mapping[str, str] | None:
                data = reader.read(ref)
                recorder.reads[key_of(ref)] = data
                return data

        return Recording()


def key_of(ref: Reference) -> str:
    return f"{ref.kind}/{ref.namespace}/{ref.name}"


def reference_of(key: str) -> Reference:
    kind, namespace, name = key.split("/")
    return Reference("secret" if kind == "secret" else "configmap", name, namespace)


def read_again(keys: list[str], settings: dict[str, Any]) -> dict[str, Mapping[str, str] | None] | None:
    """The objects a last run read, read again with the stack file's kubeconfig and context;
    None when they cannot be read before the run (a kubeconfig kept as a secret, no cluster)."""
    if not keys:
        return {}
    kubeconfig, context = cluster_of(settings)
    if isinstance(kubeconfig, dict) or isinstance(context, dict):
        return None
    reader = ClusterReader(kubeconfig, context)
    try:
        return {key: reader.read(reference_of(key)) for key in keys}
    except Exception:  # unreachable, refused: the run decides, as it would have
        return None


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
    it runs is not taken for one it applied)."""
    settings = stack_file(place.work_dir, stack)
    return {
        "settings": digest(settings.read_bytes() if settings.is_file() else b"", (place.work_dir / PROJECT_FILE).read_bytes()),
        "cluster": cluster_digest(stack_settings(settings)),
        "code": code_digest(),
        "packages": packages_digest(),
        "cli": ".".join(map(str, cli_version(str(place.cli.bin_dir / "pulumi")) or ())),
        "plugins": plugins_digest(place.cli),
    }


def fingerprint(place: Place, stack: str, reads: dict[str, str], before: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole fingerprint: the inputs (``before``, or read now), the referenced objects' digests
    and the backend's record of the stack."""
    inputs = before if before is not None else inputs_of(place, stack)
    return {**inputs, "references": reads, "state": state_record(place.backend, place.project, stack)}


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
    kept = json.loads(entry.matches)
    try:
        reads = read_again(sorted(kept.get("references", {})), stack_settings(stack_file(place.work_dir, options.stack)))
        if reads is None:
            return "the Secrets and ConfigMaps it references cannot be read before the run"
        now = fingerprint(place, options.stack, reads_digest(reads))
    except journal.JournalError:
        return "the backend's record of its state could not be read"
    except InvalidArgumentsError:
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


def remember(place: Place, stack: str, recorder: Recorder) -> None:
    """After an ``up`` that ended well (its state saved). Its inputs are read then: the run's own
    writes to the stack file (a new stack's salt) are in them."""
    store = place.store(stack)
    if store is None:
        return
    try:
        kept = fingerprint(place, stack, reads_digest(recorder.reads))
        store.put(KEY, journal.Entry("", STATUS, json.dumps(kept, sort_keys=True)))
    except (journal.JournalError, OSError, ImportError, InvalidArgumentsError, TypeError) as error:
        print(f"warning: the fingerprint of stack {stack} was not kept ({type(error).__name__}): its next up runs in full")
