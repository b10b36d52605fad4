"""``deploy.py render --stack S --out DIR``: a stack's manifests in a folder, and nothing else
(as ``helm template``): no state of the stack is read or written, no cluster is touched and
nothing is registered.

The program runs on a copy of the stack (its config file, with ``renderDirectory`` set to DIR
and ``renderOnly``, which leaves the registrations out) whose state lives in a temporary
folder, thrown away afterwards: the files are the ones render mode writes, by construction.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import tempfile

import yaml


def render(options: argparse.Namespace) -> int:
    from scripts.engine_tools import ToolsUnavailable
    from scripts.pulumi_cli import find_cli
    from scripts.stack_run import SettingsError, passphrase, run, state_backend

    source = pathlib.Path(options.work_dir).resolve()
    settings = source / "stacks" / f"Pulumi.{options.stack}.yaml"
    if not settings.exists():
        print(f"deploy.py: no stack file {settings}", flush=True)
        return 2
    out = pathlib.Path(options.out).resolve()
    if out.exists() and any(out.iterdir()):
        print(f"deploy.py: {out} is not empty: render writes into an empty folder (no stale manifest stays)", flush=True)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    try:  # the stack's own backend decides which passphrase its secrets need
        backend = state_backend(source, find_cli())
        secret = passphrase(source, options.stack, options.secrets_provider, backend)
    except ToolsUnavailable as error:
        print(f"deploy.py: {error}", file=sys.stderr, flush=True)
        return 3
    except SettingsError as error:
        print(f"deploy.py: {error}", flush=True)
        return 2
    with tempfile.TemporaryDirectory(prefix="render-") as folder:
        work = pathlib.Path(folder) / "project"
        (work / "stacks").mkdir(parents=True)
        shutil.copy(source / "Pulumi.yaml", work / "Pulumi.yaml")
        document = yaml.safe_load(settings.read_text()) or {}
        config = document.setdefault("config", {})
        config.update({"connectors:renderDirectory": str(out), "connectors:renderOnly": "true"})
        (work / "stacks" / settings.name).write_text(yaml.safe_dump(document, sort_keys=False))
        given = os.environ.get("PULUMI_BACKEND_URL")
        os.environ["PULUMI_BACKEND_URL"] = f"file://{pathlib.Path(folder) / 'state'}"
        if secret is not None:
            os.environ["PULUMI_CONFIG_PASSPHRASE"] = secret
        (pathlib.Path(folder) / "state").mkdir()
        try:
            copy = argparse.Namespace(**{**vars(options), "operation": "up", "work_dir": str(work), "skip_checkpoints": True})
            code = run(copy, {"changes": {}}, [])
        finally:
            os.chdir(source)
            if given is None:
                os.environ.pop("PULUMI_BACKEND_URL", None)
            else:
                os.environ["PULUMI_BACKEND_URL"] = given
    if code == 0:
        print(f"manifests of stack {options.stack} written to {out}")
    return code
