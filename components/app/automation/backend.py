"""Where a stack's run finds what it needs before the engine starts: the project folder and the
stack's settings file, the state backend, and the passphrase of the stack's secrets; and how the
run saves its state there: the engine's checkpoints, or the registration journal
(``components.registration.journal``) with one save at the end, the journal's stack name and its
clearing after a good ``up``."""

from __future__ import annotations

import os
import pathlib
import sys
from dataclasses import dataclass
from typing import Any

from components.app.automation.pulumi_cli import logged_in_backend
from components.app.command.runs import RunOptions
from components.app.stack_files import PROJECT_FILE, StackFileError, read_settings, stack_file
from components.registration import journal

LOCAL_PASSPHRASE = "local-dev-only"
PROJECT = "connectors"
"""The project's name when its ``Pulumi.yaml`` gives none."""


class SettingsError(RuntimeError):
    """The run cannot start as set up (a secret that must be given, no project or stack file); the
    message says what to set."""


RUNS_THE_PROGRAM = ("preview", "up")


def project_folder(options: RunOptions) -> pathlib.Path:
    """The project folder ``--work-dir`` names, refused without a ``Pulumi.yaml`` (whose
    ``stackConfigDir`` says where the stack files are); for ``preview`` and ``up``, refused
    too without the stack's settings file: the program would run with no entries, and an
    ``up`` would delete everything the stack holds."""
    work_dir = pathlib.Path(options.work_dir).resolve()
    if not (work_dir / PROJECT_FILE).is_file():
        raise SettingsError(f"no {PROJECT_FILE} in {work_dir}: --work-dir must be the project's folder")
    settings = stack_file(work_dir, options.stack)
    if options.operation in RUNS_THE_PROGRAM and not settings.is_file():
        raise SettingsError(
            f"stack {options.stack}: no stack file {settings}; nothing was run (without it the stack would have no "
            "entries and an up would delete all it holds). To empty a stack on purpose, set connectors:connectors: [] in it"
        )
    try:
        read_settings(work_dir / PROJECT_FILE, "a project file")
        if settings.is_file():
            read_settings(settings)
    except StackFileError as error:
        raise SettingsError(f"stack {options.stack}: {error}; nothing was run") from None
    return work_dir


def local_state(work_dir: pathlib.Path) -> pathlib.Path:
    """The project's own state folder, for a user with no backend of their own."""
    return work_dir / ".pulumi-state"


def state_backend(work_dir: pathlib.Path, cli: Any) -> tuple[str, str]:
    """Where the stacks' state is, and how to say so (never the URL, which may hold a
    password): ``PULUMI_BACKEND_URL``; else ``.pulumi-state/`` once it holds state (a login
    made later moves no stack); else the backend the user's own CLI is logged in to (the
    built CLI has no login); else ``.pulumi-state/``."""
    folder = local_state(work_dir)
    local = f"file://{folder}", ".pulumi-state/ in the project"
    if os.environ.get("PULUMI_BACKEND_URL"):
        return os.environ["PULUMI_BACKEND_URL"], "PULUMI_BACKEND_URL"
    if folder.is_dir() and any(folder.iterdir()):
        return local
    login = logged_in_backend(cli)
    return (login, "the backend of your pulumi login") if login else local


def passphrase(work_dir: pathlib.Path, stack: str, secrets_provider: str | None, backend: str) -> str | None:
    """The passphrase for the stack's secrets: the user's, or the local default only where the
    state (``backend``) is a local folder; None where a KMS provider, the Pulumi Cloud's own
    encryption (an ``http(s)://`` backend's default, unless the stack has a passphrase salt)
    or a passphrase file keeps them."""
    given = os.environ.get("PULUMI_CONFIG_PASSPHRASE")
    if given is not None:
        return given
    settings = stack_file(work_dir, stack)
    document = read_settings(settings) if settings.exists() else {}
    service = backend.startswith(("https://", "http://")) and "encryptionsalt" not in document
    provider = secrets_provider or document.get("secretsprovider") or ("default" if service else "passphrase")
    if provider != "passphrase" or os.environ.get("PULUMI_CONFIG_PASSPHRASE_FILE"):
        return None
    if not backend.startswith("file://"):
        raise SettingsError(
            "the state backend (PULUMI_BACKEND_URL, or your pulumi login) is shared, not a local folder: "
            "set PULUMI_CONFIG_PASSPHRASE (or "
            "PULUMI_CONFIG_PASSPHRASE_FILE) to the team's passphrase, or give the stack a KMS secrets provider "
            "(--secrets-provider awskms://..., gcpkms://, azurekeyvault://, hashivault://); the local default is not used there"
        )
    return LOCAL_PASSPHRASE


def project_name(work_dir: pathlib.Path) -> str:
    """The project's name in its ``Pulumi.yaml`` (the state backend files its stacks under it)."""
    return str(read_settings(work_dir / PROJECT_FILE, "a project file").get("name") or PROJECT)


@dataclass(frozen=True)
class Checkpoints:
    """How a run saves its state: after every step (the engine's checkpoints), or once at its
    end with every registration's outcome journaled as it comes (``registration.journal``)."""

    skipped: bool
    journal: bool


def checkpoints(options: RunOptions, backend: str) -> Checkpoints:
    """A preview saves no state (its checkpoints are serialized and thrown away: two thirds of a
    200-connector preview's time), so it never takes them. Where the backend keeps the
    registration journal (file://, postgres://), every run that changes the stack keeps it (an
    ``up`` after a killed one finds the outcomes there whatever its flags; a ``destroy`` that
    de-registers removes them), and an ``up`` skips the engine's checkpoints unless
    ``--checkpoints`` asks for them (their cost grows with the square of a stack's size; see
    docs/performance.md). Elsewhere checkpoints are skipped only when asked (``--skip-checkpoints``)."""
    if options.operation == "preview":
        return Checkpoints(skipped=True, journal=False)
    journaled = options.operation in ("up", "refresh", "destroy") and journal.supports(backend)
    by_default = options.operation == "up" and journaled and not options.checkpoints
    return Checkpoints(skipped=options.skip_checkpoints or by_default, journal=journaled)


def journal_stack(stack: str) -> str:
    return f"{PROJECT}/{stack}"


def journaled(options: RunOptions) -> bool:
    return os.environ.get(journal.ENV) == journal_stack(options.stack)


def clear_journal(options: RunOptions) -> int:
    """After an ``up`` that ended well: its state holds every outcome the journal kept, one per
    registration this run created (or took over from a killed run); how many."""
    try:
        return journal.open_journal(os.environ["PULUMI_BACKEND_URL"], journal_stack(options.stack)).clear()
    except journal.JournalError as error:
        print(f"warning: {error}", file=sys.stderr)
        return 0
