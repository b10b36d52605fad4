"""``connectors render --stack S --out DIR``: a stack's manifests in a folder, and nothing else
(as ``helm template``): no state of the stack is read or written, no cluster is touched and
nothing is registered.

The program runs on a copy of the stack (its config file, with ``renderDirectory`` set to DIR
and ``renderOnly``, which leaves the registrations out) whose state lives in a temporary
folder, thrown away afterwards: the files are the ones render mode writes, by construction.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import tempfile

import yaml

from components.app.automation.backend import SettingsError, passphrase, project_folder
from components.app.command.runs import RunOptions, RunReport
from components.app.command.stack_run import run
from components.app.stack_files import read_settings, stack_file


def render(options: RunOptions) -> int:
    try:
        source = project_folder(options)
    except SettingsError as error:
        print(f"connectors: {error}", flush=True)
        return 2
    settings = stack_file(source, options.stack)
    if not settings.exists():
        print(f"connectors: no stack file {settings}", flush=True)
        return 2
    out = pathlib.Path(options.out or "").resolve()
    if out.exists() and any(out.iterdir()):
        print(f"connectors: {out} is not empty: render writes into an empty folder (no stale manifest stays)", flush=True)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="render-") as folder:
        work = pathlib.Path(folder) / "project"
        work.mkdir()
        shutil.copy(source / "Pulumi.yaml", work / "Pulumi.yaml")
        stack_file(work, options.stack).parent.mkdir(parents=True, exist_ok=True)
        document = read_settings(settings)
        config = document["config"] = document.get("config") or {}
        config.update({"connectors:renderDirectory": str(out), "connectors:renderOnly": "true"})
        stack_file(work, options.stack).write_text(yaml.safe_dump(document, sort_keys=False))
        given = os.environ.get("PULUMI_BACKEND_URL")
        os.environ["PULUMI_BACKEND_URL"] = f"file://{pathlib.Path(folder) / 'state'}"
        # Only decrypting here (the throwaway state keeps nothing): the user's passphrase, or the
        # local one; a stack made with another says "incorrect passphrase".
        secret = passphrase(source, options.stack, options.secrets_provider, os.environ["PULUMI_BACKEND_URL"])
        if secret is not None:
            os.environ["PULUMI_CONFIG_PASSPHRASE"] = secret
        (pathlib.Path(folder) / "state").mkdir()
        try:
            copy = dataclasses.replace(options, operation="up", work_dir=str(work), skip_checkpoints=True)
            code = run(copy, RunReport(options.stack, "up"))
        finally:
            os.chdir(source)
            if given is None:
                os.environ.pop("PULUMI_BACKEND_URL", None)
            else:
                os.environ["PULUMI_BACKEND_URL"] = given
    if code == 0:
        print(f"manifests of stack {options.stack} written to {out}")
    return code
