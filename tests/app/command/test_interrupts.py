"""``command.interrupts``: the process table a signal handler reads, whatever /proc holds."""

from __future__ import annotations

import io
import os

from components.app.command import interrupts


def test_the_process_table_skips_what_went_away_while_it_was_read(monkeypatch):
    """A process that exits while the table is read leaves a stat that is empty or cut short:
    it is skipped, not an exception inside a signal handler (which would cancel nothing)."""
    stats = {
        "10": "10 (pulumi) S 7 10 10 0",
        "11": "11 (name (with) parens) R 10 11 11 0",
        "12": "",
        "13": "13 (cut",
        "14": "14 (gone) Z 10 14 14 0",
    }

    def fake_open(path: str, *_: object) -> io.StringIO:
        entry = path.split("/")[2]
        if entry not in stats:
            raise FileNotFoundError(path)
        return io.StringIO(stats[entry])

    monkeypatch.setattr(interrupts.os, "listdir", lambda _: [*stats, "15", "self"])
    monkeypatch.setattr(interrupts, "open", fake_open, raising=False)
    assert interrupts._process_table() == {10: (7, "pulumi"), 11: (10, "name (with) parens")}


def test_the_process_table_holds_this_process():
    assert interrupts._process_table()[os.getpid()][0] == os.getppid()
