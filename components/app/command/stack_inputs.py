"""A stack's inputs, each read as a digest for its fingerprint (``change_detection``): the
stack file, the program's code and packages, the plugins, the cluster it deploys to, the
referenced Secrets and ConfigMaps (as the program read them, and read again before a run), and
the backend's record of the stack's state."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import distributions
from typing import Any
from urllib.parse import urlsplit

from components.app.automation.pulumi_cli import CHECKOUT, Cli
from components.app.stack_config import cluster_of
from components.app.stack_files import StackFileError, read_stack_document
from components.kube.object_reader import ClusterReader, Reference, ReferenceReader
from components.registration import journal
from components.registration.route import host_resolves, in_cluster_target

CODE = ("components",)


def hash_of(*parts: bytes | str) -> str:
    hashed = hashlib.sha256()
    for part in parts:
        hashed.update(part.encode() if isinstance(part, str) else part)
        hashed.update(b"\0")
    return hashed.hexdigest()


def code_digest(root: pathlib.Path = CHECKOUT) -> str:
    """The program's own files: every Python file it runs (the generated SDKs left out), and
    the requirement pins."""
    skipped = {"sdk", "venv", ".venv", "node_modules", "__pycache__"}  # generated, or installed by a tool
    files = [p for folder in CODE for p in (root / folder).rglob("*.py") if not skipped & set(p.relative_to(root).parts)]
    files += [root / name for name in ("__main__.py", "requirements.txt") if (root / name).is_file()]
    return hash_of(*(part for p in sorted(files) for part in (str(p.relative_to(root)), p.read_bytes())))


def packages_digest() -> str:
    """Python's version and every distribution installed beside the program, with its version
    (one installed or upgraded that the program never imports is a run too many, never too few)."""
    installed = sorted({f"{d.metadata['Name']}={d.version}" for d in distributions()})
    return hash_of(platform.python_version(), *installed)


def installed_plugins(cli: Cli) -> list[str]:
    """The plugins in the CLI's plugin cache, by folder name (``resource-kubernetes-v4.25.0``), sorted."""
    home = pathlib.Path(cli.pulumi_home or os.environ.get("PULUMI_HOME") or pathlib.Path.home() / ".pulumi")
    return sorted(p.name for p in (home / "plugins").glob("*") if not p.name.endswith(".lock"))


def state_record(backend: str, project: str, stack: str) -> str:
    """The backend's record of the stack's state, as a digest ("" when it holds none)."""
    key = f".pulumi/stacks/{project}/{stack}.json"
    if backend.startswith("file://"):
        root = journal.file_backend_root(backend)
        for name in (key, f"{key}.gz"):
            if (root / name).is_file():
                return hash_of((root / name).read_bytes())
        return ""
    from components.registration.journal_postgres import state_record as in_postgres

    return in_postgres(backend, key)


def cluster_digest(settings: dict[str, Any], work_dir: pathlib.Path | None = None) -> str:
    """The cluster the stack deploys to, as the Kubernetes provider finds it: the stack's
    kubeconfig (a path's content, or the content itself) and context, else the ambient
    ``KUBECONFIG`` files or ``~/.kube/config``, or the pod's service account; nothing in render
    mode. A relative path is the project folder's, as the run reads it. Any change of those
    files counts (a refreshed token too): a run too many, never one too few."""
    if settings.get("connectors:renderDirectory"):
        return "render"
    given, context_given = cluster_of(settings)
    context = json.dumps(context_given, sort_keys=True)
    if isinstance(given, dict):  # kept as a secret: the stack file's ciphertext stands for it
        return hash_of(json.dumps(given, sort_keys=True), context)
    if given:
        path = in_project(str(given), work_dir)
        return hash_of(path.read_bytes() if len(str(given)) < 4096 and path.is_file() else str(given), context)
    ambient = os.environ.get("KUBECONFIG") or str(pathlib.Path.home() / ".kube" / "config")
    files = [in_project(p, work_dir) for p in ambient.split(os.pathsep) if p]
    return hash_of(*(f.read_bytes() for f in files if f.is_file()), os.environ.get("KUBERNETES_SERVICE_HOST", ""), context)


def in_project(path: str, work_dir: pathlib.Path | None) -> pathlib.Path:
    """A path from the stack file: relative ones are the project folder's (the run's own folder)."""
    given = pathlib.Path(path).expanduser()
    return given if given.is_absolute() or work_dir is None or len(path) >= 4096 else work_dir / given


class UnreadableStackFile(ValueError):
    """The stack file is not YAML of a mapping: the run, not this check, says why."""


def stack_document(file: pathlib.Path, text: bool = False) -> dict[str, Any]:
    """The stack file as the program's config takes it, or (``text``) with every scalar as written
    (``stack_files.StackDocument``); empty when there is none."""
    if not file.is_file():
        return {}
    try:
        document = read_stack_document(file)
    except StackFileError:
        raise UnreadableStackFile() from None
    return document.text if text else document.typed


def written_config(file: pathlib.Path) -> dict[str, Any]:
    """The stack file's ``config:`` block, as written (secrets as their ciphertext)."""
    config = stack_document(file).get("config") or {}
    return dict(config) if isinstance(config, dict) else {}


def settings_digest(file: pathlib.Path, project_file: pathlib.Path) -> str:
    """The stack file as written (its ``encryptionsalt`` aside: a new stack's first run writes it,
    rewriting the file as the CLI lays it out, and it changes no value) and ``Pulumi.yaml``, every
    scalar read as its text."""
    document = {k: v for k, v in stack_document(file, text=True).items() if k != "encryptionsalt"}
    return hash_of(json.dumps(document, sort_keys=True), project_file.read_bytes())


def routes_digest(settings: dict[str, Any], resolves: Callable[[str], bool] = host_resolves) -> str:
    """Which in-cluster platform addresses resolve from here: a registration's ``auto`` route
    (direct, or through the API server) is decided by it as the run starts."""
    entries = settings.get("connectors:connectors")
    hosts = set()
    for entry in entries if isinstance(entries, list) else []:
        registration = (entry.get("spec") or {}).get("registration") if isinstance(entry, dict) else None
        url = registration.get("platformUrl") if isinstance(registration, dict) else None
        if isinstance(url, str) and in_cluster_target(url) is not None:
            hosts.add(urlsplit(url).hostname or "")
    return hash_of(*(f"{host}={resolves(host)}" for host in sorted(hosts)))


def reads_digest(reads: Mapping[str, Mapping[str, str] | None]) -> dict[str, str]:
    return {ref: hash_of(json.dumps(data, sort_keys=True)) if data is not None else "absent" for ref, data in reads.items()}


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


def read_again(
    keys: list[str], settings: dict[str, Any], work_dir: pathlib.Path | None = None
) -> dict[str, Mapping[str, str] | None] | None:
    """The objects a last run read, read again with the stack file's kubeconfig and context;
    None when they cannot be read before the run (a kubeconfig kept as a secret, no cluster)."""
    if not keys:
        return {}
    kubeconfig, context = cluster_of(settings)
    if isinstance(kubeconfig, dict) or isinstance(context, dict):
        return None
    if isinstance(kubeconfig, str) and kubeconfig:
        kubeconfig = str(in_project(kubeconfig, work_dir)) if in_project(kubeconfig, work_dir).is_file() else kubeconfig
    reader = ClusterReader(kubeconfig, context)
    try:
        return {key: reader.read(reference_of(key)) for key in keys}
    except Exception:  # unreachable, refused: the run decides, as it would have
        return None
