"""The scripts run in core's pod, run here by a real shell against stand-ins of ``nc``, ``curl``
and ``sleep``: the administrator's registration, the proxy queue's, the guard of a StatefulSet
core's ordinal."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from components.render.platform.core_init import QUEUE_SCRIPT, go_json, scripts_config_map, verify_instance_id
from components.render.platform.resolve import platform_of

from ...support.operator_platform import args_with

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


@pytest.mark.parametrize(("index", "code"), [("2", 0), ("", 1)])
def test_the_guard_fails_the_pod_when_the_index_did_not_reach_it(tmp_path, index, code):
    guard = verify_instance_id(platform_of(args_with()), "PLATFORM_INSTANCE_ID")
    done = subprocess.run(
        guard["command"],
        env={"PATH": os.environ["PATH"], "PLATFORM_INSTANCE_ID": index},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == code
    assert ("1.28" in done.stderr) == (code == 1) and "instanceId" in (done.stderr or "instanceId")


def test_go_json_escapes_what_go_escapes():
    assert go_json({"a": "<b>&", "n": 1}) == '{"a":"\\u003cb\\u003e\\u0026","n":1}'
