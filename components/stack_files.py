"""Where a stack's settings file is: ``stacks/Pulumi.<stack>.yaml`` under the project (the
project's ``stackConfigDir``), for the program and every command that reads one."""

from __future__ import annotations

import pathlib

STACKS_FOLDER = "stacks"


def file_name(stack: str) -> str:
    return f"Pulumi.{stack}.yaml"


def stack_file(project: pathlib.Path, stack: str) -> pathlib.Path:
    return project / STACKS_FOLDER / file_name(stack)


def stack_names(project: pathlib.Path) -> list[str]:
    """The stacks whose settings files are in the project, in name order."""
    files = (project / STACKS_FOLDER).glob(file_name("*"))
    return sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in files)
