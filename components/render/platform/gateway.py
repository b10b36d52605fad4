"""The API gateway: Kong without a database, its routes and plugins in a ``kong.yml`` it reads
at start from the ``global-configmap``.

``kong.yml`` is written in the layout the operator's YAML library writes (four spaces, a list
under a list item's key two further), so the ConfigMap is the operator's byte for byte.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from components.render.objects import Obj
from components.render.platform.managed_messaging import management_route
from components.render.platform.resolve import EPHEMERAL, Base, Platform, ephemeral_volume, metadata, mount, plain_env
from components.render.workload import Probe

CONSUMER_PORT = 8000
ADMIN_PORT = 8001
STATUS_PORT = 8100
GLOBAL_CONFIG_MAP = "global-configmap"
KONG_CONFIG = "kong.yml"
DECLARATIVE_PATH = "/kong/declarative"
UPSTREAM_PORT = 8080


def _kong_health(initial_delay: int, failure_threshold: int) -> Probe:
    return Probe(
        "",
        initial_delay_seconds=initial_delay,
        period_seconds=10,
        failure_threshold=failure_threshold,
        timeout_seconds=5,
        success_threshold=1,
        command=("kong", "health"),
    )


def gateway(platform: Platform) -> Base:
    spec = platform.args.gateway
    env = plain_env(
        [
            ("KONG_DATABASE", "off"),
            ("KONG_PREFIX", "/tmp/"),
            ("KONG_PROXY_ACCESS_LOG", "/dev/stdout"),
            ("KONG_ADMIN_ACCESS_LOG", "/dev/stdout"),
            ("KONG_PROXY_ERROR_LOG", "/dev/stderr"),
            ("KONG_ADMIN_ERROR_LOG", "/dev/stderr"),
            ("KONG_ADMIN_LISTEN", f"0.0.0.0:{ADMIN_PORT}, 0.0.0.0:8444 ssl"),
            ("KONG_STATUS_LISTEN", f"0.0.0.0:{STATUS_PORT}"),
            ("KONG_DECLARATIVE_CONFIG", f"{DECLARATIVE_PATH}/{KONG_CONFIG}"),
            ("KONG_PLUGINS", "request-transformer,cors,file-log,response-transformer,post-function"),
            ("KONG_LOG_LEVEL", "info"),
            *([("KONG_TRUSTED_IPS", ",".join(spec.trusted_ips))] if spec.trusted_ips else []),
        ]
    )
    config_volume = "api-gateway-config-volume"
    return Base(
        "api-gateway",
        "api-gateway",
        spec,
        env=env,
        readiness=_kong_health(5, 3),
        startup=_kong_health(15, 45),
        volumes=[
            {
                "name": config_volume,
                "configMap": {"name": GLOBAL_CONFIG_MAP, "items": [{"key": KONG_CONFIG, "path": KONG_CONFIG}]},
            },
            ephemeral_volume("10Mi"),
        ],
        volume_mounts=[mount(config_volume, DECLARATIVE_PATH), mount(EPHEMERAL, "/tmp")],
        port=CONSUMER_PORT,
        port_name="consumer-http",
        extra_ports=[("admin-http", ADMIN_PORT)],
        service_ports=[
            {"name": name, "port": port, "protocol": "TCP"}
            for name, port in (("admin", ADMIN_PORT), ("consumer", CONSUMER_PORT), ("status", STATUS_PORT))
        ],
    )


def platform_host(platform: Platform) -> str | None:
    """The platform's public host: the edge's, else ``common.hostName``."""
    edge = platform.args.edge
    return (edge.host if edge is not None else None) or platform.args.common.host_name


def _service(name: str, host: str, route: str, paths: list[str], strip: bool, **more: Any) -> dict[str, Any]:
    service: dict[str, Any] = {"name": name, "host": host, "port": UPSTREAM_PORT, **more}
    service["routes"] = [{"name": route, "strip_path": strip, "preserve_host": True, "paths": paths}]
    return service


def _plugins(platform: Platform) -> list[dict[str, Any]]:
    spec, plugins = platform.args.gateway, []
    if spec.cors.enabled:
        host = platform_host(platform)
        origins = spec.cors.origins or ([f"https://{host}"] if host else ["*"])
        config = {
            "origins": origins,
            "credentials": True,
            "max_age": 3600,
            "exposed_headers": spec.cors.exposed_headers or ["X-Auth-Token"],
            "preflight_continue": False,
        }
        plugins.append({"name": "cors", "config": dict(sorted(config.items()))})
    if spec.logging.request:
        plugins.append({"name": "file-log", "config": {"path": "/dev/stdout"}})
    return plugins


def kong_config(platform: Platform) -> dict[str, Any]:
    """Kong's routes: core's API and its login and logout, the front end, a managed broker's
    management UI and utils when on."""
    url = platform.args.fe_administrator.url
    services = [
        _service("core", "core", "protocols_route", ["/api"], False, protocol="http"),
        _service("core-login-logout", "core", "core-oauth2_route", [url.login, url.logout], False, protocol="http", path="/api"),
        _service(
            "fe-administrator",
            "fe-administrator",
            "fe-administrator_route-cert",
            [url.base or "/administrator"],
            True,
            protocol="http",
        ),
    ]
    if (management := management_route(platform)) is not None:
        services.append(management)
    if platform.args.utils.enabled:
        services.append(_service("utils", "utils", "v1-utils-route", ["/utils"], True))
    config: dict[str, Any] = {"_format_version": "2.1", "_transform": True, "services": services}
    if plugins := _plugins(platform):
        config["plugins"] = plugins
    return config


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = text and text.strip() == text and text[0] not in "!&*-?{}[],#|>@`\"'%:" and ": " not in text and " #" not in text
    return text if plain and _reads_back(text) else json.dumps(text, ensure_ascii=False)


def _reads_back(text: str) -> bool:
    """Whether a YAML 1.1 reader takes ``text`` written plain for the string itself (``=`` it
    takes for a tag of its own, ``yes`` for a boolean: those are quoted)."""
    try:
        return bool(yaml.safe_load(text) == text)
    except yaml.YAMLError:
        return False


def _block(value: Any, level: int, column: int) -> list[str]:
    """A mapping's keys at ``column`` (its nested blocks at ``level`` + 4), or a list's items at ``level``."""
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{' ' * column}{key}:")
                lines += _block(item, level + 4, level + 4)
            else:
                lines.append(f"{' ' * column}{key}: {_scalar(item) if item not in ({}, []) else json.dumps(item)}")
        return lines
    for item in value:
        if isinstance(item, dict) and item:
            nested = _block(item, level, level + 2)
            lines.append(f"{' ' * level}- {nested[0].lstrip()}")
            lines += nested[1:]
        else:
            lines.append(f"{' ' * level}- {_scalar(item)}")
    return lines


def kong_yaml(config: dict[str, Any]) -> str:
    return "\n".join(_block(config, 0, 0)) + "\n"


def global_config_map(platform: Platform) -> Obj:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(platform, GLOBAL_CONFIG_MAP, "global"),
        "data": {KONG_CONFIG: kong_yaml(kong_config(platform))},
    }
