"""The engine's words, read for the user: the entries whose resources failed (from the CLI's
Diagnostics section), and a failed command's own error lines without the Automation API's framing."""

from __future__ import annotations

import re

from components.type_tokens import DYNAMIC_REGISTRATION as REGISTRATION


class Diagnostics:
    """The CLI's output, printed as it comes, with the entries whose resources failed read from
    its Diagnostics section (a resource's header, then its ``error:`` lines). A resource's name
    is its entry's (``<name>`` or ``<namespace>/<name>``), its registration's ``<that>-registration``."""

    HEADER = re.compile(r"^ {2}(\S+) \((.+)\):$")

    def __init__(self) -> None:
        self.failed: list[str] = []
        self._section, self._resource = False, ""

    def read(self, line: str) -> None:
        print(line)
        text = line.rstrip("\n")
        self._section = self._section or text.startswith("Diagnostics:")
        header = self.HEADER.match(text) if self._section else None
        if header:
            kind, name = header.groups()
            self._resource = (
                "" if kind == "pulumi:pulumi:Stack" else name.removesuffix("-registration") if kind == REGISTRATION else name
            )
        elif self._resource and text.strip().startswith("error:") and self._resource not in self.failed:
            self.failed.append(self._resource)


def cli_error(error: Exception) -> str:
    """The CLI's own error lines of a failed command, without the Automation API's framing."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip().startswith("error:")]
    return "; ".join(lines) or "the pulumi CLI failed"
