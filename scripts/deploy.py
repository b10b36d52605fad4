"""Run the program on a stack through the real Pulumi engine (Automation API, inline mode).

This machine has no Python language host for ``pulumi up``; the Automation API runs the same
program (``components.program.connectors_program``) in this process instead. State goes to
``.pulumi-state/`` in the project (ignored by git), secrets are encrypted with a passphrase:
``PULUMI_CONFIG_PASSPHRASE`` if set, else the documented local one, ``local-dev-only``.

    python scripts/deploy.py up|preview|destroy [--stack dev]
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOCAL_PASSPHRASE = "local-dev-only"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operation", choices=["up", "preview", "destroy"])
    parser.add_argument("--stack", default="dev")
    options = parser.parse_args()

    from pulumi import automation as auto

    from components.program import connectors_program
    from scripts.engine_tools import engine_env, tools_bin

    env = engine_env(tools_bin(), os.environ.get("PULUMI_CONFIG_PASSPHRASE", LOCAL_PASSPHRASE))
    state = ROOT / ".pulumi-state"
    state.mkdir(exist_ok=True)
    env["PULUMI_BACKEND_URL"] = f"file://{state}"
    os.environ.update(env)
    os.chdir(ROOT)
    stack = auto.create_or_select_stack(
        options.stack,
        project_name="connectors",
        program=connectors_program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=str(ROOT),
            pulumi_home=env["PULUMI_HOME"],
            env_vars=env,
        ),
    )
    try:
        if options.operation == "preview":
            stack.preview(on_output=print)
        elif options.operation == "up":
            result = stack.up(on_output=print)
            for key, value in result.outputs.items():
                print(f"{key}: {'[secret]' if value.secret else value.value}")
        else:
            stack.destroy(on_output=print)
    except auto.CommandError:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
