"""Core: what it reads and from where, and the two scripts of this library's own, run by a real
shell against stand-ins of ``nc``, ``curl`` and ``sleep`` (what they send, when they give up)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from components.render.platform import render_platform
from components.render.platform.core import QUEUE_SCRIPT, go_json, scripts_config_map
from components.render.platform.resolve import platform_of

from ...support.operator_platform import args_with, container, env_of, find

PEM = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmg\nAwIBAgIUK+/=\n-----END CERTIFICATE-----\n"


def stand_ins(folder: pathlib.Path, curl_answers: list[str]) -> dict[str, str]:
    """``nc`` and ``sleep`` that return at once; ``curl`` that records its arguments (one file per
    call) and prints the next answer (a body, a newline, the status)."""
    answers = folder / "answers"
    answers.write_text("\n".join(curl_answers) + "\n")
    scripts = {
        "nc": "exit 0",
        "sleep": "exit 0",
        "curl": (
            f'n=$(ls {folder}/call-* 2>/dev/null | wc -l); for a in "$@"; do printf "%s\\n" "$a"; done > {folder}/call-$n\n'
            f'code=$(sed -n "$((n + 1))p" {answers}); printf \'body\\n%s\' "$code"'
        ),
    }
    for name, body in scripts.items():
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return {"PATH": f"{folder}:{os.environ['PATH']}"}


def calls(folder: pathlib.Path) -> list[list[str]]:
    return [p.read_text().splitlines() for p in sorted(folder.glob("call-*"))]


def test_the_administrators_script_posts_the_certificate_as_one_line_and_the_identity_as_data(tmp_path):
    hostile = "O'Brien $(touch pwned) `touch pwned2`"
    args = args_with(registerAdmin={"enabled": True, "username": "admin", "name": hostile, "email": "a&b@example.com"})
    script = scripts_config_map(platform_of(args))["data"]["register-admin.sh"]
    env = {**stand_ins(tmp_path, []), "ADMIN_CERT": PEM}
    subprocess.run(["sh", "-c", script], env=env, cwd=tmp_path, check=True, timeout=30)
    (call,) = calls(tmp_path)
    body = json.loads(call[call.index("-d") + 1])
    assert body == {
        "username": "admin",
        "firstName": hostile,
        "email": "a&b@example.com",
        "enabled": True,
        "certificateData": "MIIBszCCAVmgAwIBAgIUK+/=",
    }
    assert call[-1] == "http://localhost:8080/api/v1/local/admins"
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def _queue_script(tmp_path: pathlib.Path, answers: list[str], api_key: str | None) -> tuple[int, list[list[str]]]:
    body = go_json({"name": "${HOSTNAME}", "exchange": "ilm-proxy", "routingKey": "proxymessage.*.${HOSTNAME}", "properties": {}})
    env = {**stand_ins(tmp_path, answers), "PROVISIONING_API_URL": "https://prov.example"}
    if api_key:
        env["PROVISIONING_API_KEY"] = api_key
    done = subprocess.run(["sh", "-c", QUEUE_SCRIPT.format(body=body)], env=env, cwd=tmp_path, timeout=30, capture_output=True)
    return done.returncode, calls(tmp_path)


def test_the_queue_script_tries_a_transient_answer_again_and_names_its_pod(tmp_path):
    code, made = _queue_script(tmp_path, ["503", "429", "201"], "key")
    assert code == 0 and len(made) == 3
    body = json.loads(made[0][made[0].index("-d") + 1])
    assert body["name"] == subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
    assert body["routingKey"].endswith(body["name"]) and "X-API-Key: key" in made[0]
    assert made[0][-1] == "https://prov.example/api/v1/queues"


@pytest.mark.parametrize("answer", ["401", "404"])
def test_the_queue_script_fails_its_pod_on_a_refusal(tmp_path, answer):
    code, made = _queue_script(tmp_path, [answer], None)
    assert code == 1 and len(made) == 1
    assert not any(arg.startswith("X-API-Key") for arg in made[0])


def test_a_generated_administrators_certificate_is_read_from_the_issued_secret():
    objects = render_platform(args_with(registerAdmin={"enabled": True, "certificate": {"source": "generated"}}))
    env = env_of(container(find(objects, "Deployment", "core"), "core"))
    assert env["ADMIN_CERT"] == {"secretKeyRef": {"name": "admin-certificate-secret", "key": "tls.crt", "optional": True}}


def test_without_an_administrator_core_has_no_script_and_no_hook():
    objects = render_platform(args_with(registerAdmin=None))
    core = find(objects, "Deployment", "core")
    assert not [o for o in objects if o["metadata"]["name"].endswith("-core-scripts")]
    assert "lifecycle" not in container(core, "core") and "ADMIN_CERT" not in env_of(container(core, "core"))
    assert [v["name"] for v in core["spec"]["template"]["spec"]["volumes"]] == ["ephemeral"]


def test_the_outbound_proxy_and_the_header_reach_core():
    common = {"proxy": {"enabled": True, "http": "http://proxy:3128", "noProxy": "10.0.0.0/8"}}
    objects = render_platform(args_with(common=common, core={"clientCertHeader": "x-client-cert"}, provisioning=None))
    core = find(objects, "Deployment", "core")
    env = env_of(container(core, "core"))
    assert (env["HTTP_PROXY"], env["NO_PROXY"], env["HEADER_NAME"]) == ("http://proxy:3128", "10.0.0.0/8", "x-client-cert")
    assert "HTTPS_PROXY" not in env and env["PROVISIONING_API_URL"] is None
    # no provisioning API: no queue to register, even with proxies on
    assert [c["name"] for c in core["spec"]["template"]["spec"]["initContainers"]] == ["wait-for-auth"]


def test_deployed_provisioning_points_core_at_the_service_and_its_bootstrap_secret():
    provisioning = {"mode": "deploy", "deploy": {"bootstrapSecretRef": "bootstrap", "exchange": "own-exchange"}}
    objects = render_platform(args_with(provisioning=provisioning, common={"proxy": {"enabled": True}}))
    core = find(objects, "Deployment", "core")
    env = env_of(container(core, "core"))
    assert env["PROVISIONING_API_URL"] == "http://provisioning-rabbitmq:8077"
    assert env["PROVISIONING_API_KEY"] == {"secretKeyRef": {"name": "bootstrap", "key": "securityApiKey"}}
    assert '"exchange":"own-exchange"' in container(core, "provision-instance-queue")["command"][2]


def test_go_json_escapes_what_go_escapes():
    assert go_json({"a": "<b>&", "n": 1}) == '{"a":"\\u003cb\\u003e\\u0026","n":1}'
