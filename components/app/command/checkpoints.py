"""How a run saves its state: the engine's checkpoints, or the registration journal
(``components.registration.journal``) with one save at the end; which one an operation takes,
and the journal's stack name and clearing after a good ``up``."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from components.app.command.runs import RunOptions
from components.app.command.stack_backend import PROJECT
from components.registration import journal


@dataclass(frozen=True)
class Checkpoints:
    """How a run saves its state: after every step (the engine's checkpoints), or once at its
    end with every registration's outcome journaled as it comes (``registration.journal``)."""

    skipped: bool
    journal: bool


def checkpoints(options: RunOptions, backend: str) -> Checkpoints:
    """A preview saves no state (its checkpoints are serialized and thrown away: two thirds of a
    200-connector preview's time), so it never takes them. Where the backend keeps the
    registration journal (file://, postgres://), every run that changes the stack keeps it (an
    ``up`` after a killed one finds the outcomes there whatever its flags; a ``destroy`` that
    de-registers removes them), and an ``up`` skips the engine's checkpoints unless
    ``--checkpoints`` asks for them (their cost grows with the square of a stack's size; see
    docs/performance.md). Elsewhere checkpoints are skipped only when asked (``--skip-checkpoints``)."""
    if options.operation == "preview":
        return Checkpoints(skipped=True, journal=False)
    journaled = options.operation in ("up", "refresh", "destroy") and journal.supports(backend)
    by_default = options.operation == "up" and journaled and not options.checkpoints
    return Checkpoints(skipped=options.skip_checkpoints or by_default, journal=journaled)


def journal_stack(stack: str) -> str:
    return f"{PROJECT}/{stack}"


def journaled(options: RunOptions) -> bool:
    return os.environ.get(journal.ENV) == journal_stack(options.stack)


def clear_journal(options: RunOptions) -> int:
    """After an ``up`` that ended well: its state holds every outcome the journal kept, one per
    registration this run created (or took over from a killed run); how many."""
    try:
        return journal.open_journal(os.environ["PULUMI_BACKEND_URL"], journal_stack(options.stack)).clear()
    except journal.JournalError as error:
        print(f"warning: {error}", file=sys.stderr)
        return 0
