"""Run the program on a stack through the real Pulumi engine (Automation API, inline mode).

This machine has no Python language host for ``pulumi up``; the Automation API runs the same
program (``components.program.connectors_program``) in this process instead, with the
operations and flags of the ``pulumi`` command that the README asks users to run:

    python scripts/deploy.py preview [--diff] [--target URN ...] [--stack dev]
    python scripts/deploy.py up      [--diff] [--target URN ...] [--replace URN ...]
    python scripts/deploy.py refresh [--target URN ...]
    python scripts/deploy.py destroy [--target URN ...]
    python scripts/deploy.py urns    (every resource's URN, as ``pulumi stack --show-urns``)

State goes to ``PULUMI_BACKEND_URL`` when set (any backend Pulumi supports), else to
``.pulumi-state/`` in the project (ignored by git). Secrets are encrypted with the passphrase
``PULUMI_CONFIG_PASSPHRASE`` if set, else the documented local one, ``local-dev-only``.
Stack config is read from ``<work-dir>/stacks/Pulumi.<stack>.yaml``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOCAL_PASSPHRASE = "local-dev-only"
OPERATIONS = ["preview", "up", "refresh", "destroy", "urns"]


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operation", choices=OPERATIONS)
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--diff", action="store_true", help="show the detailed diff of every change")
    parser.add_argument("--target", action="append", default=[], metavar="URN", help="operate on this resource only")
    parser.add_argument("--replace", action="append", default=[], metavar="URN", help="up: replace this resource")
    parser.add_argument("--work-dir", default=str(ROOT), help="the project folder (Pulumi.yaml and stacks/)")
    options = parser.parse_args(argv)
    if options.replace and options.operation not in ("up", "preview"):
        parser.error("--replace applies to up and preview only")
    if options.diff and options.operation not in ("up", "preview"):
        parser.error("--diff applies to up and preview only")
    return options


def main(argv: list[str] | None = None) -> int:
    options = arguments(argv)

    from pulumi import automation as auto

    from components.program import connectors_program
    from scripts.engine_tools import engine_env, report_run_errors_once, tools_bin

    work_dir = pathlib.Path(options.work_dir).resolve()
    env = engine_env(tools_bin(), os.environ.get("PULUMI_CONFIG_PASSPHRASE", LOCAL_PASSPHRASE))
    if not os.environ.get("PULUMI_BACKEND_URL"):
        state = work_dir / ".pulumi-state"
        state.mkdir(exist_ok=True)
        env["PULUMI_BACKEND_URL"] = f"file://{state}"
    os.environ.update(env)
    os.chdir(work_dir)
    report_run_errors_once()
    stack = auto.create_or_select_stack(
        options.stack,
        project_name="connectors",
        program=connectors_program,
        opts=auto.LocalWorkspaceOptions(work_dir=str(work_dir), pulumi_home=env["PULUMI_HOME"], env_vars=env),
    )
    targets = options.target or None
    try:
        if options.operation == "preview":
            stack.preview(on_output=print, on_error=print, diff=options.diff, target=targets, replace=options.replace or None)
        elif options.operation == "up":
            result = stack.up(on_output=print, on_error=print, diff=options.diff, target=targets, replace=options.replace or None)
            for key, value in result.outputs.items():
                print(f"{key}: {'[secret]' if value.secret else value.value}")
        elif options.operation == "refresh":
            stack.refresh(on_output=print, on_error=print, target=targets)
        elif options.operation == "destroy":
            stack.destroy(on_output=print, on_error=print, target=targets)
        else:
            for resource in stack.export_stack().deployment.get("resources", []):
                print(resource["urn"])
    except auto.CommandError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
