"""Where a stack's settings file is: ``Pulumi.<stack>.yaml`` in the folder the project's
``Pulumi.yaml`` names as its ``stackConfigDir`` (``stacks/`` in this project), or beside
``Pulumi.yaml`` when it names none, as Pulumi itself looks; for the program and every command
that reads one."""

from __future__ import annotations

import pathlib
from typing import Any

import yaml

STACKS_FOLDER = "stacks"
"""This project's ``stackConfigDir``, where a project folder has no ``Pulumi.yaml`` to say it."""
PROJECT_FILE = "Pulumi.yaml"


def file_name(stack: str) -> str:
    return f"Pulumi.{stack}.yaml"


def config_folder(project: pathlib.Path) -> pathlib.Path:
    """The folder of the project's stack files: its ``Pulumi.yaml``'s ``stackConfigDir``
    (relative to the project), the project folder when it sets none, ``stacks/`` when the
    project has no readable ``Pulumi.yaml``."""
    try:
        settings = yaml.safe_load((project / PROJECT_FILE).read_text()) or {}
    except (OSError, yaml.YAMLError):
        return project / STACKS_FOLDER
    folder = settings.get("stackConfigDir") if isinstance(settings, dict) else None
    return project / folder if isinstance(folder, str) and folder else project


def stack_file(project: pathlib.Path, stack: str) -> pathlib.Path:
    return config_folder(project) / file_name(stack)


def stack_names(project: pathlib.Path) -> list[str]:
    """The stacks whose settings files are in the project, in name order."""
    files = config_folder(project).glob(file_name("*"))
    return sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in files)


class StackFileError(ValueError):
    """A settings file that cannot be read as one; the message names the file and where, never
    its content (which may hold secrets)."""


def read_settings(path: pathlib.Path, what: str = "a mapping of settings") -> dict[str, Any]:
    """The YAML mapping in ``path`` (empty when the file is): its ``config``, when present, a
    mapping too; ``StackFileError`` otherwise."""
    try:
        document = yaml.safe_load(path.read_text()) or {}
    except OSError as error:
        raise StackFileError(f"{path} cannot be read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise StackFileError(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise StackFileError(f"{path} is not valid YAML{where}") from None
    if not isinstance(document, dict) or not isinstance(document.get("config", {}), dict | None):
        raise StackFileError(f"{path} must be {what}, with config: a mapping of keys to values")
    return document
