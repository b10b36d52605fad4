"""What the models know of the Pulumi SDK, without importing it: the models are read where no
engine runs (schema generators, editors' checks, the registration's provider process), and an
instance of an SDK class can only exist once a program imported the SDK. So a value is an
``Output`` or a resource only when ``pulumi`` is loaded and says so; and an argument error is
the SDK's ``RunError`` (printed by the engine without a traceback) wherever the SDK runs."""

from __future__ import annotations

import sys
from typing import Any

_ENGINE_ERRORS: dict[type, type] = {}


def _sdk() -> Any:
    return sys.modules.get("pulumi")


def is_output(value: object) -> bool:
    sdk = _sdk()
    return sdk is not None and isinstance(value, sdk.Output)


def is_custom_resource(value: object) -> bool:
    sdk = _sdk()
    return sdk is not None and isinstance(value, sdk.CustomResource)


def engine_error_class(cls: type[BaseException]) -> type[BaseException]:
    """``cls``, also a ``pulumi.RunError`` when the SDK is loaded (one subclass per class)."""
    sdk = _sdk()
    run_error = getattr(sdk, "RunError", None)
    if run_error is None or issubclass(cls, run_error):
        return cls
    if cls not in _ENGINE_ERRORS:
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
        _ENGINE_ERRORS[cls] = type(cls.__name__, (cls, run_error), namespace)
    return _ENGINE_ERRORS[cls]
