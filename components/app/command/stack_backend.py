"""Where a stack's run finds what it needs before the engine starts: the project folder and the
stack's settings file, the state backend, and the passphrase of the stack's secrets."""

from __future__ import annotations

import os
import pathlib
from typing import Any

from components.app.command.pulumi_cli import logged_in_backend
from components.app.command.runs import RunOptions
from components.app.stack_files import PROJECT_FILE, StackFileError, read_settings, stack_file

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
