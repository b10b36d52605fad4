"""Referenced Secrets and ConfigMaps: checksum, resource references, missing ones, no leaks (mocks)."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pulumi_kubernetes as k8s
import pytest

from components import ConnectorComponent, InvalidArgumentsError
from components.app.program import connectors_program
from components.kube.object_reader import NoCluster
from components.machinery.workload_component import Prepared
from components.render.checksum import EMPTY_CHECKSUM

from ..support.mocks import RecordingMocks, StaticReader, run

PLANTED = "planted-secret-value-9f1c"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def connector(**spec: Any) -> dict[str, Any]:
    return {"name": "demo", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}, **spec}}


REFS = {
    "secretRefs": [
        {"name": "provider-credentials", "type": "env", "keys": [{"secretKey": "token", "envVar": "TOKEN"}]},
        {"name": "provider-tls", "type": "volume", "mountPath": "/tls"},
    ],
    "configMapRefs": [{"name": "provider-settings", "type": "env"}],
}
CLUSTER = {
    ("secret", "ilm", "provider-credentials"): {"token": b64(PLANTED)},
    ("secret", "ilm", "provider-tls"): {"tls.crt": b64("CERT"), "ca.crt": b64("CA")},
    ("configmap", "ilm", "provider-settings"): {"mode": "strict"},
}
EXPECTED = sha(
    (
        f"configmap/provider-settings={sha(b'modestrict')};"
        f"secret/provider-credentials={sha(b'token' + PLANTED.encode())};"
        f"secret/provider-tls={sha(b'ca.crtCA' + b'tls.crtCERT')};"
    ).encode()
)


def deployment_annotation(mocks) -> str:
    return mocks.one(DEPLOYMENT).inputs["spec"]["template"]["metadata"]["annotations"]["otilm.com/config-checksum"]


def component_with(reader: Any, **refs: Any) -> ConnectorComponent:
    args = {"name": "demo", "namespace": "ilm", "image": {"repository": "r", "tag": "1"}, **refs}
    return ConnectorComponent("demo", args, prepared=Prepared(reference_reader=reader))


def test_named_references_are_read_hashed_and_stamped():
    reader = StaticReader(dict(CLUSTER))
    mocks = run(lambda: connectors_program(reader), {"connectors": [connector(**REFS)]})
    assert deployment_annotation(mocks) == EXPECTED
    assert sorted(reader.reads) == sorted(CLUSTER)


def test_checksum_is_an_output_and_secret_when_a_secret_went_in():
    def program(cluster: dict, refs: dict) -> Any:
        return component_with(StaticReader(cluster), **refs).config_checksum

    mocks = run(lambda: program(dict(CLUSTER), REFS))
    assert mocks.result == EXPECTED
    assert mocks.one(DEPLOYMENT).secret_paths == ["spec"]
    assert all(not r.secret_paths for r in mocks.resources if r.type_ != DEPLOYMENT)

    only_config_maps = {"configMapRefs": REFS["configMapRefs"]}
    mocks = run(lambda: program(dict(CLUSTER), only_config_maps))
    assert mocks.one(DEPLOYMENT).secret_paths == []


def test_no_references_is_the_empty_hash():
    mocks = run(lambda: connectors_program(StaticReader()), {"connectors": [connector()]})
    assert deployment_annotation(mocks) == EMPTY_CHECKSUM


def test_every_missing_reference_in_one_message_before_anything_is_registered():
    reader = StaticReader({("configmap", "ilm", "provider-settings"): {"a": "b"}})
    mocks = RecordingMocks()
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(reader), {"connectors": [connector(**REFS)]}, mocks)
    assert mocks.resources == []
    message = str(caught.value)
    assert 'Secret "provider-credentials" not found in namespace "ilm"' in message
    assert 'Secret "provider-tls" not found in namespace "ilm"' in message
    assert "provider-settings" not in message


def test_missing_references_of_several_connectors_are_listed_together():
    second = {**connector(configMapRefs=[{"name": "other", "type": "env"}]), "name": "second"}
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(StaticReader()), {"connectors": [connector(**REFS), second]})
    assert len(caught.value.problems) == 4
    assert 'ConfigMap "other" not found in namespace "ilm"' in str(caught.value)


def test_a_resource_of_the_program_is_used_instead_of_a_read():
    reader = StaticReader()

    def program() -> Any:
        secret = k8s.core.v1.Secret("creds", metadata={"name": "creds", "namespace": "ilm"}, string_data={"token": PLANTED})
        settings = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings", "namespace": "ilm"}, data={"mode": "strict"})
        c = component_with(
            reader,
            secret_refs=[{"name": "creds", "type": "env", "source": secret}],
            config_map_refs=[{"name": "settings", "type": "volume", "mount_path": "/s", "source": settings}],
        )
        return c.config_checksum

    mocks = run(program)
    expected = sha(f"configmap/settings={sha(b'modestrict')};secret/creds={sha(b'token' + PLANTED.encode())};".encode())
    assert mocks.result == expected
    assert deployment_annotation(mocks) == expected
    assert reader.reads == []


def test_changing_one_value_changes_only_the_pod_template_annotation():
    def inputs(value: str) -> dict[str, Any]:
        cluster = {**CLUSTER, ("configmap", "ilm", "provider-settings"): {"mode": value}}
        mocks = run(lambda: connectors_program(StaticReader(cluster)), {"connectors": [connector(**REFS)]})
        return {(r.type_, r.name): r.inputs for r in mocks.resources}

    before, after = inputs("strict"), inputs("lenient")
    changed = [key for key in before if before[key] != after[key]]
    assert changed == [(DEPLOYMENT, "demo")]
    b, a = before[(DEPLOYMENT, "demo")], after[(DEPLOYMENT, "demo")]
    b_ann = b["spec"]["template"]["metadata"].pop("annotations")
    a_ann = a["spec"]["template"]["metadata"].pop("annotations")
    assert b == a
    assert b_ann != a_ann


def test_a_planted_secret_value_never_appears_outside_the_secret():
    def program() -> None:
        connectors_program(StaticReader(dict(CLUSTER)))
        k8s.core.v1.Secret("own", metadata={"name": "own", "namespace": "ilm"}, string_data={"token": PLANTED})

    mocks = run(program, {"connectors": [connector(**REFS)]})
    for r in mocks.resources:
        text = json.dumps(r.inputs, default=str)
        if r.type_ == "kubernetes:core/v1:Secret":
            continue
        assert PLANTED not in text and b64(PLANTED) not in text, r.type_


def test_without_a_cluster_named_references_are_left_out():
    def program() -> Any:
        settings = k8s.core.v1.ConfigMap("settings", metadata={"name": "settings", "namespace": "ilm"}, data={"k": "v"})
        c = component_with(
            NoCluster(),
            secret_refs=[{"name": "provider-credentials", "type": "env"}],
            config_map_refs=[{"name": "settings", "type": "env", "source": settings}],
        )
        return c.config_checksum

    mocks = run(program)
    assert mocks.result == sha(f"configmap/settings={sha(b'kv')};".encode())


def test_source_must_be_a_resource():
    with pytest.raises(InvalidArgumentsError, match=r"secretRefs\[0\]\.source"):
        run(
            lambda: connectors_program(StaticReader()),
            {"connectors": [connector(secretRefs=[{"name": "x", "type": "env", "source": "x"}])]},
        )
