"""Runs example_program.py's program through Python's Automation API (inline, with the pulumi CLI of
PULUMI_ROOT/bin or PATH): python deploy.py <preview|up|destroy> <stack> <work-dir>. The stack's
config comes as JSON in CONNECTORS_EXAMPLE_CONFIG ({"key": {"value", "secret"}}); the result
(changes and outputs) is the last line, as JSON."""

from __future__ import annotations

import json
import os
import sys

from example_program import program
from pulumi import automation as auto


def main(operation: str, stack_name: str, work_dir: str) -> dict:
    command = auto.PulumiCommand(root=os.environ.get("PULUMI_ROOT"), skip_version_check=True)
    workspace = auto.LocalWorkspaceOptions(work_dir=work_dir, pulumi_command=command, secrets_provider="passphrase")
    stack = auto.create_or_select_stack(stack_name, project_name="connectors-python-example", program=program, opts=workspace)
    settings = json.loads(os.environ.get("CONNECTORS_EXAMPLE_CONFIG") or "{}")
    stack.set_all_config({k: auto.ConfigValue(v["value"], secret=v.get("secret", False)) for k, v in settings.items()})
    if operation == "preview":
        return {"changes": stack.preview(on_output=print).change_summary}
    if operation == "up":
        up = stack.up(on_output=print)
        outputs = {k: "[secret]" if v.secret else v.value for k, v in up.outputs.items()}
        return {"changes": up.summary.resource_changes, "outputs": outputs}
    if operation == "destroy":
        return {"changes": stack.destroy(on_output=print).summary.resource_changes}
    raise SystemExit(f"unknown operation {operation}")


if __name__ == "__main__":
    try:
        result = main(*sys.argv[1:4])
    except auto.CommandError as error:  # the engine's own lines say what failed: those, without the runtime's echo
        print("\n".join(line for line in str(error).splitlines() if line.strip().startswith("error:")), file=sys.stderr)
        sys.exit(1)
    print("\n" + json.dumps(result))
