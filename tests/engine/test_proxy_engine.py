"""Proxies through the real engine (render mode): preview, up, rerun unchanged, and a new config
token rolling only the Deployment's pod template."""

from __future__ import annotations

import json

import yaml
from pulumi import automation as auto

from components.app.program import connectors_program
from tests.support.proxies import TOKEN_VALUE, b64, stack_proxies

from ..support.engine_stacks import changes
from ..support.mocks import StaticReader


def test_a_proxy_stack_previews_ups_reruns_and_rolls_on_a_new_token(make_stack):
    proxies = stack_proxies("proxy-full")
    namespace = proxies[0]["namespace"]
    reader = StaticReader(
        {
            ("secret", namespace, "dc-west-config"): {"configToken": b64(TOKEN_VALUE)},
            ("secret", namespace, "corp-ca-bundle"): {"ca.crt": b64("ca")},
            ("configmap", namespace, "corp-trust-bundle"): {"trust.pem": "pem"},
        }
    )
    stack = make_stack([], name="proxy", program=lambda: connectors_program(reader))
    stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps(proxies)))

    preview = stack.preview()
    assert preview.change_summary.get("create", 0) >= 7
    assert any("connectors:index:Proxy" in line for line in stack.output)
    up = stack.up()
    outputs = up.outputs["proxies"].value[f"{namespace}/dc-west"]  # keyed by namespace and name
    assert outputs["endpoint"] == f"http://dc-west.{namespace}.svc.cluster.local:8080"
    assert outputs["apiEndpoint"] == f"http://dc-west.{namespace}.svc.cluster.local:8081"
    assert outputs["observedVersion"] == "1.0.0"
    kinds = sorted(yaml.safe_load(text)["kind"] for text in stack.rendered().values())
    assert kinds == ["Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor"]
    assert changes(stack.up().summary.resource_changes) == {}

    def by_kind() -> dict[str, dict]:
        return {(obj := yaml.safe_load(text))["kind"]: obj for text in stack.rendered().values()}

    before = by_kind()
    reader.objects[("secret", namespace, "dc-west-config")] = {"configToken": b64("a-rotated-token")}
    rotated = stack.up()
    assert changes(rotated.summary.resource_changes) == {"update": 1}
    after = by_kind()
    assert [kind for kind in after if after[kind] != before[kind]] == ["Deployment"]
    old, new = before["Deployment"], after["Deployment"]
    old["spec"]["template"]["metadata"]["annotations"].pop("otilm.com/config-checksum")
    new["spec"]["template"]["metadata"]["annotations"].pop("otilm.com/config-checksum")
    assert old == new, "only the checksum annotation of the pod template changed"
    state = stack.state_file()
    assert TOKEN_VALUE not in state and "a-rotated-token" not in state
    assert all(TOKEN_VALUE not in text for text in stack.rendered().values())
