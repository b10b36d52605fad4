"""Every object a platform renders, a pure function of its validated arguments and its version.

One builder per component (``core``, ``services``, ``gateway``) says what the component is;
``availability`` fills in the high-availability profile's defaults; ``resolve`` layers the
platform's and the component's settings on it and renders it with the shared workload builders;
``connections``, ``network_policies`` and ``edge`` render what the components share. The order
is the reference operator's, the order they are created in: the budgets and autoscalers after
every workload, the ServiceMonitors last.
"""

from __future__ import annotations

from collections.abc import Callable

from components.args.platform_spec import PlatformArgs
from components.render.objects import Obj
from components.render.platform.availability import budgets_and_autoscalers, service_monitors, with_availability_defaults
from components.render.platform.connections import messaging_config_map
from components.render.platform.core import core
from components.render.platform.core_init import scripts_config_map
from components.render.platform.edge import edge_objects
from components.render.platform.gateway import gateway, global_config_map
from components.render.platform.managed_database import managed_database_objects
from components.render.platform.managed_messaging import managed_messaging_objects
from components.render.platform.network_policies import network_policies
from components.render.platform.provisioning import deploys_provisioning, provisioning
from components.render.platform.resolve import Base, Platform, platform_of, platform_workload, workload_objects
from components.render.platform.services import (
    auth,
    auth_opa_policies,
    fe_administrator,
    fe_administrator_config_map,
    scheduler,
    utils,
)
from components.render.workload import Workload

__all__ = ["render_platform"]


def render_platform(args: PlatformArgs, version: str | None = None) -> list[Obj]:
    """``version``: the version this run renders (its default: the spec's, else the default bundle's)."""
    platform = platform_of(args, version)
    built: list[tuple[Workload, Base]] = []

    def objects_of(builder: Callable[[Platform], Base]) -> list[Obj]:
        base = with_availability_defaults(platform, builder(platform))
        built.append(((workload := platform_workload(platform, base)), base))
        return workload_objects(workload, base.spec)

    objects = [*managed_database_objects(platform), *managed_messaging_objects(platform), messaging_config_map(platform)]
    if (scripts := scripts_config_map(platform)) is not None:
        objects.append(scripts)
    for builder in (core, scheduler, auth_opa_policies, auth):
        objects += objects_of(builder)
    objects.append(fe_administrator_config_map(platform))
    objects += objects_of(fe_administrator)
    if args.utils.enabled:
        objects += objects_of(utils)
    objects.append(global_config_map(platform))
    objects += objects_of(gateway)
    if deploys_provisioning(platform):
        objects += objects_of(provisioning)
    objects += budgets_and_autoscalers(built) + network_policies(platform) + edge_objects(platform)
    return objects + service_monitors(built)
