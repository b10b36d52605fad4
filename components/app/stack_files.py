"""Where a stack's settings file is: ``Pulumi.<stack>.yaml`` in the folder the project's
``Pulumi.yaml`` names as its ``stackConfigDir`` (``stacks/`` in this project), or beside
``Pulumi.yaml`` when it names none, as Pulumi itself looks; for the program and every command
that reads one."""

from __future__ import annotations

import copy
import pathlib
from dataclasses import dataclass
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


@dataclass(frozen=True)
class StackDocument:
    """A settings file parsed once, read two ways: ``typed`` as the program's config takes it
    (YAML 1.1: ``true``, ``2``), ``text`` with every scalar as written (``on`` and ``yes``, or
    ``1:30`` and ``90``, are one value to YAML 1.1 but two to the CLI: what changed is told by the
    text)."""

    typed: dict[str, Any]
    text: dict[str, Any]


_PARSED: dict[tuple[str, int, int, int], StackDocument] = {}
"""Each file as parsed, by its path and its stat (an edit is a new key): a run reads its stack
file where it needs it (the backend, the passphrase, the fingerprint before and after) and
parses it once."""


def _typed(node: yaml.Node) -> yaml.Node:
    """``node`` (composed with no implicit types: every plain scalar a string) with the tags
    YAML 1.1 resolves for its plain scalars, as ``yaml.safe_load`` would have composed it."""
    resolver = yaml.resolver.Resolver()  # SafeLoader's own
    pending, seen = [node], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:  # an alias: its node is visited once
            continue
        seen.add(id(current))
        if isinstance(current, yaml.ScalarNode) and current.style is None and current.tag == "tag:yaml.org,2002:str":
            current.tag = resolver.resolve(yaml.ScalarNode, current.value, (True, False))
        elif isinstance(current, yaml.SequenceNode):
            pending.extend(current.value)
        elif isinstance(current, yaml.MappingNode):
            pending.extend(item for pair in current.value for item in pair)
    return node


def _constructed(node: yaml.Node | None, loader: type[yaml.BaseLoader] | type[yaml.SafeLoader]) -> Any:
    if node is None:
        return None
    constructor = loader("")
    try:
        return constructor.construct_document(node)
    finally:
        constructor.dispose()


def parse_stack_document(path: pathlib.Path) -> StackDocument:
    """The file as both readings (see ``StackDocument``); the YAML errors as ``yaml`` raises them."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _PARSED:
        node = yaml.compose(path.read_text(), Loader=yaml.BaseLoader)
        text = _constructed(node, yaml.BaseLoader) or {}
        typed = _constructed(_typed(node), yaml.SafeLoader) if node is not None else None
        _PARSED.clear()  # one run, one or two files: the last parsed is what is asked again
        _PARSED[key] = StackDocument(typed or {}, text)
    return _PARSED[key]


def read_stack_document(path: pathlib.Path, what: str = "a mapping of settings") -> StackDocument:
    """The file's two readings (a copy each, to change freely), once it is a YAML mapping whose
    ``config``, when present, is a mapping too; ``StackFileError`` otherwise."""
    try:
        document = parse_stack_document(path)
    except OSError as error:
        raise StackFileError(f"{path} cannot be read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise StackFileError(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        raise StackFileError(f"{path} is not valid YAML{where}") from None
    typed = document.typed
    if not isinstance(typed, dict) or not isinstance(typed.get("config", {}), dict | None):
        raise StackFileError(f"{path} must be {what}, with config: a mapping of keys to values")
    return StackDocument(copy.deepcopy(typed), copy.deepcopy(document.text))


def read_settings(path: pathlib.Path, what: str = "a mapping of settings") -> dict[str, Any]:
    """The YAML mapping in ``path`` as the program's config takes it (empty when the file is)."""
    return read_stack_document(path, what).typed
