"""A platform's objects: one builder per component on the shared workload builders.
Imports ``args`` and ``render``'s shared builders only."""

from components.render.platform.platform_objects import render_platform

__all__ = ["render_platform"]
