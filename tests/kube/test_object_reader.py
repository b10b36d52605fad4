"""``ClusterReader`` with the real kubernetes client against a stand-in API server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import yaml

from components.kube.object_reader import ClusterReader, Reference, ReferenceReadError
from tests.support.samples import kubeconfig_text

from ..support.http_answer import answer_json, serving

TOKEN = "test-bearer-token"
OBJECTS = {
    "/api/v1/namespaces/ilm/secrets/creds": {
        "kind": "Secret",
        "apiVersion": "v1",
        "metadata": {"name": "creds"},
        "data": {"pw": "cA=="},
    },
    "/api/v1/namespaces/ilm/configmaps/settings": {
        "kind": "ConfigMap",
        "apiVersion": "v1",
        "metadata": {"name": "settings"},
        "data": {"a": "b"},
    },
    "/apis/apps/v1/namespaces/stateful/statefulsets/core": {
        "kind": "StatefulSet",
        "apiVersion": "apps/v1",
        "metadata": {"name": "core", "namespace": "stateful"},
        "spec": {
            "serviceName": "core",
            "selector": {"matchLabels": {"app": "core"}},
            "template": {"metadata": {"annotations": {"otilm.com/platform-version": "2.19.0"}}, "spec": {"containers": []}},
        },
    },
    "/apis/apps/v1/namespaces/ilm/deployments/core": {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": {"name": "core", "namespace": "ilm"},
        "spec": {
            "selector": {"matchLabels": {"app": "core"}},
            "template": {"metadata": {"annotations": {"otilm.com/platform-version": "2.18.0"}}, "spec": {"containers": []}},
        },
    },
}


@pytest.fixture
def api_server() -> Iterator[dict[str, Any]]:
    seen: dict[str, Any] = {"auth": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen["auth"].append(self.headers.get("Authorization"))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                status, body = 401, {"kind": "Status", "code": 401}
            elif self.path.split("?")[0] == "/api/v1/namespaces/ilm/secrets/forbidden":
                status, body = 403, {"kind": "Status", "code": 403, "message": "LEAKED-DETAIL"}
            elif self.path.split("?")[0] in OBJECTS:
                status, body = 200, OBJECTS[self.path.split("?")[0]]
            else:
                status, body = 404, {"kind": "Status", "code": 404}
            answer_json(self, status, json.dumps(body).encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    seen["kubeconfig"] = kubeconfig_text(f"http://127.0.0.1:{server.server_address[1]}", TOKEN)
    with serving(server):
        yield seen


def test_reads_secret_and_configmap_data_with_the_kubeconfig_credentials(api_server, tmp_path):
    path = tmp_path / "kubeconfig"
    path.write_text(api_server["kubeconfig"])
    for reader in (ClusterReader(str(path), "ctx"), ClusterReader(api_server["kubeconfig"])):
        assert reader.read(Reference("secret", "creds", "ilm")) == {"pw": "cA=="}
        assert reader.read(Reference("configmap", "settings", "ilm")) == {"a": "b"}
        assert reader.read(Reference("secret", "absent", "ilm")) is None
    assert set(api_server["auth"]) == {f"Bearer {TOKEN}"}


def test_a_refusal_names_the_object_and_status_only(api_server):
    with pytest.raises(ReferenceReadError) as caught:
        ClusterReader(api_server["kubeconfig"]).read(Reference("secret", "forbidden", "ilm"))
    assert str(caught.value) == 'cannot read Secret "forbidden" in namespace "ilm": status 403'


def test_an_unreachable_cluster_is_a_clean_error(tmp_path):
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
        "users": [{"name": "u", "user": {"token": TOKEN}}],
        "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "ctx",
    }
    reader = ClusterReader(yaml.safe_dump(config))
    with pytest.raises(ReferenceReadError, match="the cluster could not be reached") as caught:
        reader.read(Reference("configmap", "settings", "ilm"))
    assert "127.0.0.1" not in str(caught.value) and TOKEN not in str(caught.value)


def test_the_running_platform_version_is_its_cores_annotation_or_none(api_server):
    reader = ClusterReader(api_server["kubeconfig"])
    assert reader.platform_version("ilm") == "2.18.0"
    assert reader.platform_version("stateful") == "2.19.0", "a StatefulSet core"
    assert reader.platform_version("empty") is None
