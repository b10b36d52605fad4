"""A run of the main command, as two typed values: what it is asked (``RunOptions``) and what it
reports (``RunReport``). ``main`` makes the options from its flags; the fleet gives each
stack's worker a copy for that stack and reads back its report; ``--report FILE`` writes one.
The JSON of both is defined here only."""

from __future__ import annotations

import dataclasses
import json
import pathlib
from dataclasses import dataclass, field
from typing import Any

OPERATIONS = ("preview", "up", "refresh", "destroy", "urns", "cancel", "render", "status")
CREATING = ("preview", "up", "refresh", "destroy")
"""Operations that create the stack when it does not exist (a typo elsewhere is an error)."""
UNCHANGED = "unchanged"
"""The result of an up or preview not run: nothing changed since the stack's last good up."""


@dataclass(frozen=True)
class RunOptions:
    """One operation on one stack, with the ``pulumi`` command's flags."""

    operation: str
    stack: str = "dev"
    work_dir: str = "."
    diff: bool = False
    refresh: bool = False
    target: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    secrets_provider: str | None = None
    skip_checkpoints: bool = False
    checkpoints: bool = False
    """up: the engine's checkpoint after every step, not the registration journal."""
    engine_parallel: int | None = None
    clear_pending_creates: bool = False
    out: str | None = None
    """render: the folder the manifests go to."""
    check: bool = False
    """status: every problem, and a non-zero exit when there is one."""
    json: bool = False
    """status --check: the problems as JSON."""
    run_all: bool = False
    """up/preview: run even when nothing changed since the stack's last good up (``change_detection``)."""

    def for_stack(self, stack: str) -> RunOptions:
        return dataclasses.replace(self, stack=stack)

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @staticmethod
    def from_json(text: str) -> RunOptions:
        data = json.loads(text)
        return RunOptions(**{**data, "target": tuple(data["target"]), "replace": tuple(data["replace"])})


@dataclass
class RunReport:
    """What a run did: its result, the changes it made (by operation, ``same`` left out), how
    long it took, and how many registrations it created."""

    stack: str
    operation: str
    result: str = "failed"
    changes: dict[str, int] = field(default_factory=dict)
    duration: float = 0.0
    registrations: int = 0

    def succeeded(self) -> bool:
        return self.result in ("succeeded", UNCHANGED)

    def write(self, path: pathlib.Path | str) -> None:
        pathlib.Path(path).write_text(json.dumps(dataclasses.asdict(self)))

    @staticmethod
    def read(path: pathlib.Path | str) -> RunReport:
        data: dict[str, Any] = json.loads(pathlib.Path(path).read_text())
        return RunReport(**data)
