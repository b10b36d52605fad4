"""The modules a registration passes through from ``RegistrationProvider.create`` to the socket:
``python -m scripts.registration_path``. One ``create`` against the platform stand-in on
127.0.0.1 (tests/support/platform_double.py), every Python call profiled until the register
request's first byte is written; prints each module of ``components.registration`` in the
order it is entered, how many there are, and which modules a call entered again after the path
had left them (the provider, which calls each of the others in turn, is the one expected). No
journal: the variables that would point it at a backend are cleared; the route is direct."""

from __future__ import annotations

import os
import sys
from types import FrameType
from typing import Any

PACKAGE = "components.registration"


def path_to_the_socket() -> list[str]:
    """The modules of ``PACKAGE`` entered, in order (consecutive calls in one module once)."""
    from components.registration.provider import RegistrationProvider
    from tests.support.platform_double import platform_double
    from tests.support.registration_props import registration_props

    entered: list[str] = []
    sent = False

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal sent
        if sent:
            return
        if event == "c_call" and getattr(arg, "__name__", "") in ("send", "sendall") and "socket" in repr(arg):
            sent = True
        elif event == "call":
            module = frame.f_globals.get("__name__", "")
            if module.startswith(PACKAGE) and (not entered or entered[-1] != module):
                entered.append(module)

    with platform_double() as double:
        props = registration_props(double.url)
        sys.setprofile(profile)
        try:
            RegistrationProvider().create(props)
        finally:
            sys.setprofile(None)
    return entered


def main() -> int:
    for variable in ("CONNECTORS_REGISTRATION_JOURNAL", "PULUMI_BACKEND_URL"):
        os.environ.pop(variable, None)
    entered = path_to_the_socket()
    short = [m.removeprefix(f"{PACKAGE}.") for m in entered]
    print(" -> ".join(short))
    again = ", ".join(reentered(short)) or "none"
    print(f"{len(set(short))} modules entered; entered again after the path had left them: {again}")
    return 0


def reentered(path: list[str]) -> list[str]:
    """Each module a call entered again after the path had left it, once per time."""
    return [m for i, m in enumerate(path) if m in path[:i]]


if __name__ == "__main__":
    sys.exit(main())
