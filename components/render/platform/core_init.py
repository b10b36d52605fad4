"""What runs in core's pod before and beside core itself: its init containers (the guard of a
StatefulSet core's ordinal, the waits for auth, the broker and the scheduler, the registration
of its proxy queue) and the first administrator's registration, run by its postStart hook.

Three scripts are this library's own, doing what the operator's do: their text differs from the
operator's render, their requests and their checks do not.
"""

from __future__ import annotations

import json
from typing import Any

from components.render.objects import Obj
from components.render.platform.resolve import SERVICE_PORT, Platform, helper_container, metadata, plain_env, secret_env
from components.render.platform.services import BROKER_WAIT, broker_wait_env

OPA_PORT = 8181
SCRIPTS_PATH = "/opt/ilm/scripts"
ADMIN_SCRIPT = "register-admin.sh"
ADMIN_CERTIFICATE_SECRET = "admin-certificate-secret"
"""The Secret a generated administrator's certificate is issued into."""
DEPLOYED_PROVISIONING_URL = "http://provisioning-rabbitmq:8077"
CERTIFICATE_SLOT = "__ADMIN_CERT__"


def go_json(value: Any) -> str:
    """JSON as Go's ``encoding/json`` writes it: compact, with ``<``, ``>`` and ``&`` escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def scripts_config_map_name(platform: Platform) -> str:
    return f"{platform.name}-core-scripts"


def admin_certificate(platform: Platform) -> tuple[str, str] | None:
    """The first administrator's certificate Secret and key, when it registers by certificate."""
    admin = platform.args.register_admin
    if admin is None or not admin.enabled or (admin.certificate is not None and not admin.certificate.enabled):
        return None
    certificate = admin.certificate
    if certificate is None or certificate.source == "generated" or not certificate.secret_ref:
        return ADMIN_CERTIFICATE_SECRET, (certificate.cert_key if certificate else None) or "tls.crt"
    return certificate.secret_ref, certificate.cert_key or "tls.crt"


def provisioning_api(platform: Platform) -> tuple[str, str | None, str]:
    """Core's provisioning API: its URL, and the Secret and key of its API key."""
    block = platform.args.provisioning
    if block is None:
        return "", None, "provisioningApiKey"
    if block.mode == "deploy" and block.deploy is not None:
        return DEPLOYED_PROVISIONING_URL, block.deploy.bootstrap_secret_ref, block.deploy.api_key_key or "securityApiKey"
    return block.api_url or "", block.api_key_secret_ref, block.api_key or "provisioningApiKey"


def wait_for_auth(platform: Platform) -> Obj:
    loops = [f"while ! nc -z {name} {SERVICE_PORT}; do sleep 1; done" for name in ("auth", "auth-opa-policies")]
    script = " &&\n".join(
        [
            *loops,
            'echo "auth service seems to be started"',
            BROKER_WAIT,
            f"while ! nc -z scheduler {SERVICE_PORT}; do sleep 1; done",
        ]
    )
    script += ' &&\necho "messaging and scheduler service seems to be started"\n'
    return helper_container(platform, "wait-for-auth", script, broker_wait_env(platform))


QUEUE_SCRIPT = """HOSTNAME=$(hostname)
read -r BODY <<'EOF'
{body}
EOF
BODY=$(printf '%s' "$BODY" | sed "s/\\${{HOSTNAME}}/${{HOSTNAME}}/g")
while true; do
  set -- -sS --connect-timeout 5 --max-time 30 -w '\\n%{{http_code}}' -X POST -H 'Content-Type: application/json' -d "$BODY"
  if [ -n "${{PROVISIONING_API_KEY:-}}" ]; then set -- "$@" -H "X-API-Key: ${{PROVISIONING_API_KEY}}"; fi
  OUT=$(curl "$@" --url "${{PROVISIONING_API_URL}}/api/v1/queues"); RC=$?
  case "$RC" in
    0) ;;
    1|3|60) echo "provisioning request failed for good (curl exit $RC)"; exit 1 ;;
    *) echo "provisioning API unreachable (curl exit $RC), again in 5s"; sleep 5; continue ;;
  esac
  CODE=$(printf '%s' "$OUT" | tail -n 1)
  case "$CODE" in
    2??) echo "instance queue of $HOSTNAME provisioned"; exit 0 ;;
    408|429|5??) echo "provisioning API not ready (HTTP $CODE), again in 5s"; sleep 5 ;;
    *) echo "instance queue refused (HTTP $CODE)"; exit 1 ;;
  esac
done
"""
"""Registers this pod's own queue with the provisioning API until it answers: a transient failure
(no answer, 408, 429, 5xx) is tried again, any other fails the pod. The body is composed here as
JSON and read from a quoted here-document, so nothing in it is ever run by the shell."""


def instance_queue(platform: Platform) -> Obj:
    url, secret, key = provisioning_api(platform)
    deploy = platform.args.provisioning.deploy if platform.args.provisioning else None
    arguments = {a.name: a.value for a in deploy.queue_arguments} if deploy and deploy.queue_arguments else {"x-expires": 1800000}
    body = {
        "name": "${HOSTNAME}",
        "exchange": (deploy.exchange if deploy else None) or platform.bundle.wiring.proxy_exchange,
        "routingKey": (deploy.routing_key if deploy else None) or "proxymessage.*.${HOSTNAME}",
        "properties": dict(sorted(arguments.items())),
    }
    env = plain_env([("PROVISIONING_API_URL", url)])
    if secret:
        env.append(secret_env("PROVISIONING_API_KEY", secret, key))
    return helper_container(platform, "provision-instance-queue", QUEUE_SCRIPT.format(body=go_json(body)), env)


ADMIN_SCRIPT_TEXT = """#!/bin/sh
# Registers the first administrator with core's local-admin API, which answers on localhost only:
# run in core's pod by its postStart hook. Core creates an administrator once; a rerun is harmless.
while ! nc -z localhost {core_port}; do sleep 1; done
while ! nc -z localhost {opa_port}; do sleep 1; done
# $ADMIN_CERT (PEM, from the Secret) as the one line of base64 core reads: armour and blanks removed.
CERT=$(printf '%s\\n' "$ADMIN_CERT" | sed '/-----/d' | tr -d ' \\t\\r\\n')
# The body is data: read from a quoted here-document, only the certificate's slot is filled in.
read -r BODY <<'EOF'
{body}
EOF
BODY=$(printf '%s' "$BODY" | sed "s|{slot}|${{CERT}}|")
curl -X POST -H 'content-type: application/json' -d "${{BODY}}" http://localhost:{core_port}/api/v1/local/admins
"""


def scripts_config_map(platform: Platform) -> Obj | None:
    """The first administrator's registration script, when it registers by certificate."""
    admin = platform.args.register_admin
    if admin_certificate(platform) is None or admin is None:
        return None
    identity: dict[str, Any] = {"username": admin.username or "", "firstName": admin.name or ""}
    if admin.last_name:
        identity["lastName"] = admin.last_name
    body = go_json({**identity, "email": admin.email or "", "enabled": True, "certificateData": CERTIFICATE_SLOT})
    script = ADMIN_SCRIPT_TEXT.format(core_port=SERVICE_PORT, opa_port=OPA_PORT, body=body, slot=CERTIFICATE_SLOT)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(platform, scripts_config_map_name(platform), "core-scripts"),
        "data": {ADMIN_SCRIPT: script},
    }


POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']"
"""A StatefulSet pod's ordinal, as a label Kubernetes writes from 1.28 on."""


def instance_id_from_pod_index(platform: Platform) -> str | None:
    """The variable a StatefulSet core without an ``instanceId`` takes its id into from its pod's
    ordinal (2.19.0 on), so that each replica's certificate serial numbers are its own."""
    core, name = platform.args.core, platform.bundle.wiring.instance_id_env
    return name if core.workload_type == "StatefulSet" and core.instance_id is None else None


def verify_instance_id(platform: Platform, variable: str) -> Obj:
    """Fails the pod before anything else when the ordinal did not reach it (a cluster before
    1.28): core would take an id from its address instead, shared by pods whose addresses end alike."""
    script = (
        f'[ -n "${variable}" ] && echo "instance id resolved" && exit 0\n'
        f"echo \"{variable} is empty: a StatefulSet core takes it from its pod's index label, written by "
        'Kubernetes 1.28 and later; upgrade the cluster, or give a single-replica core spec.core.instanceId" >&2\n'
        "exit 1\n"
    )
    return helper_container(
        platform, "verify-instance-id", script, [{"name": variable, "valueFrom": {"fieldRef": {"fieldPath": POD_INDEX}}}]
    )
