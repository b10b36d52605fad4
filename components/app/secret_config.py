"""Which values of the stack config are secret, value by value.

Pulumi tells a program only that a key holds a secret (``connectors:connectors`` as a whole,
once any value under it was set with ``config set --path --secret``). The stack file says
which values: those written as ``{secure: ...}``. Each entry's fields that hold one are kept
secret by its component (its rendered objects, or its registration's inputs). Where the file
cannot be read, every field of every entry of a secret key counts as secret.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pulumi
from pydantic.alias_generators import to_snake

from components.app import stack_files
from components.app.stack_files import StackFileError, read_settings
from components.registration import contract

ALL = frozenset({"spec", "registration"})
"""Every field (the stack file could not be read): every rendered object and the registration."""


ALWAYS_SECRET = re.compile(
    rf"^spec\.registration\.({'|'.join(contract.BY_PYTHON[name].config for name in contract.ALWAYS_SECRET)})[.\[]"
)
"""Values inside the inputs the registration keeps secret in state whatever the config says:
nothing else to mark."""


def running_stack_file() -> pathlib.Path | None:
    """The stack's settings file: ``stacks/`` (this project's ``stackConfigDir``) or the project
    folder, under the project's root (or the working folder)."""
    stack = pulumi.get_stack()
    roots = [pathlib.Path(root) for root in (pulumi.get_root_directory() or "", str(pathlib.Path.cwd())) if root]
    for path in (path for root in roots for path in (stack_files.stack_file(root, stack), root / stack_files.file_name(stack))):
        if path.is_file():
            return path
    return None


def _secure_paths(value: Any, path: str) -> list[str]:
    if isinstance(value, dict) and set(value) == {"secure"}:
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _secure_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _secure_paths(v, f"{path}[{i}]")]
    return []


def secure_paths(key: str) -> list[str] | None:
    """Paths (``connectors[0].spec.env[1].value``) of the values written as secrets under
    ``connectors:<key>``; None when the stack file cannot be read."""
    path = running_stack_file()
    if path is None:
        return None
    try:
        config = read_settings(path).get("config") or {}
    except StackFileError:
        return None
    return _secure_paths(config.get(f"connectors:{key}"), key)


def is_secure(path: str, secure: list[str]) -> bool:
    """Whether the value at ``path`` is secret: written as one, or inside one written so."""
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in secure)


def secret_fields(key: str, count: int) -> list[frozenset[str]]:
    """For each of ``count`` entries of ``connectors:<key>``, the top-level argument names
    (snake_case: ``env``, ``registration``) that hold a secret."""
    if not pulumi.runtime.is_config_secret(f"connectors:{key}"):
        return [frozenset()] * count
    paths = secure_paths(key)
    if paths is None:
        return [ALL] * count
    if paths == [key]:  # the whole list set as one secret value: every field of every entry
        return [ALL] * count
    fields: list[set[str]] = [set() for _ in range(count)]
    for path in paths:
        found = re.match(rf"^{key}\[(\d+)\](?:\.(.*))?$", path)
        if found is None or int(found[1]) >= count:
            continue
        rest = found[2] or ""
        if not rest:  # the whole entry
            fields[int(found[1])] |= ALL
        elif not ALWAYS_SECRET.match(rest):
            parts = rest.split(".")
            field = parts[1] if parts[0] == "spec" and len(parts) > 1 else parts[0]
            fields[int(found[1])].add(to_snake(field.split("[")[0]))
    return [frozenset(f) for f in fields]
