"""The gateway's routes and plugins, and ``kong.yml`` as the operator's YAML library lays it out."""

from __future__ import annotations

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from components.render.platform import render_platform
from components.render.platform.gateway import kong_config, kong_yaml
from components.render.platform.resolve import platform_of

from ...support.operator_platform import args_with, container, env_of, find


def kong(**spec):
    return yaml.safe_load(find(render_platform(args_with(**spec)), "ConfigMap", "global-configmap")["data"]["kong.yml"])


def test_cors_defaults_to_the_platforms_own_origin_and_request_logging_to_stdout():
    config = kong(gateway={"cors": {"enabled": True}, "logging": {"request": True}}, common={"hostName": "p.example.com"})
    cors, file_log = config["plugins"]
    assert cors == {
        "name": "cors",
        "config": {
            "credentials": True,
            "exposed_headers": ["X-Auth-Token"],
            "max_age": 3600,
            "origins": ["https://p.example.com"],
            "preflight_continue": False,
        },
    }
    assert file_log == {"name": "file-log", "config": {"path": "/dev/stdout"}}
    assert kong(gateway={"cors": {"enabled": True}})["plugins"][0]["config"]["origins"] == ["*"]


def test_the_front_ends_paths_route_login_and_logout():
    config = kong(feAdministrator={"url": {"login": "/sign-in", "logout": "/sign-out", "base": "/admin"}})
    routes = {s["name"]: s["routes"][0]["paths"] for s in config["services"]}
    assert routes == {"core": ["/api"], "core-login-logout": ["/sign-in", "/sign-out"], "fe-administrator": ["/admin"]}
    assert "plugins" not in config


def test_trusted_ips_reach_kong():
    gateway = find(render_platform(args_with(gateway={"trustedIps": ["10.0.0.0/8", "192.168.0.1"]})), "Deployment", "api-gateway")
    assert env_of(container(gateway, "api-gateway"))["KONG_TRUSTED_IPS"] == "10.0.0.0/8,192.168.0.1"


text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(st.lists(text, min_size=1, max_size=3), st.lists(text, min_size=1, max_size=3))
@example(["="], ["yes", "~"])  # a YAML 1.1 reader takes each for something else than a string: quoted
def test_kong_yml_reads_back_as_the_config_it_was_made_from(origins, headers):
    config = kong_config(
        platform_of(args_with(gateway={"cors": {"enabled": True, "origins": origins, "exposedHeaders": headers}}))
    )
    assert yaml.safe_load(kong_yaml(config)) == config
