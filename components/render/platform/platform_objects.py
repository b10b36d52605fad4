"""Every object a platform renders, a pure function of its validated arguments and its version.

One builder per component (``core``, ``services``, ``gateway``) says what the component is;
``workloads`` layers the platform's and the component's settings on it and renders it with the
shared workload builders; ``connections`` and ``network_policies`` render what the components
share. The order is the reference operator's, the order they are created in.
"""

from __future__ import annotations

from components.args.platform_spec import PlatformArgs
from components.render.objects import Obj
from components.render.platform.connections import messaging_config_map
from components.render.platform.core import core, scripts_config_map
from components.render.platform.edge import edge_objects
from components.render.platform.gateway import gateway, global_config_map
from components.render.platform.network_policies import network_policies
from components.render.platform.resolve import Base, Platform, platform_of, platform_workload, workload_objects
from components.render.platform.services import (
    auth,
    auth_opa_policies,
    fe_administrator,
    fe_administrator_config_map,
    scheduler,
    utils,
)

__all__ = ["render_platform"]


def _objects(platform: Platform, base: Base) -> list[Obj]:
    return workload_objects(platform_workload(platform, base), base.spec)


def render_platform(args: PlatformArgs, version: str | None = None) -> list[Obj]:
    """``version``: the version this run renders (its default: the spec's, else the default bundle's)."""
    platform = platform_of(args, version)
    objects = [messaging_config_map(platform)]
    if (scripts := scripts_config_map(platform)) is not None:
        objects.append(scripts)
    for builder in (core, scheduler, auth_opa_policies, auth):
        objects += _objects(platform, builder(platform))
    objects.append(fe_administrator_config_map(platform))
    objects += _objects(platform, fe_administrator(platform))
    if args.utils.enabled:
        objects += _objects(platform, utils(platform))
    objects.append(global_config_map(platform))
    objects += _objects(platform, gateway(platform))
    return objects + network_policies(platform) + edge_objects(platform)
