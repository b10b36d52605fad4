"""``render.projection``: referenced Secrets, ConfigMaps and volumes projected into the pod, by reference."""

from __future__ import annotations

import pytest

from components.args.blocks import ConfigMapRefArgs, SecretRefArgs, VolumeArgs
from components.render.projection import project_refs


@pytest.mark.parametrize(
    ("secrets", "config_maps", "volumes", "env", "env_from", "pod_volumes", "mounts"),
    [
        ([{"name": "s", "type": "env"}], [], [], [], [{"secretRef": {"name": "s"}}], [], []),
        (
            [{"name": "s", "type": "env", "keys": [{"secretKey": "k", "envVar": "K"}, {"secretKey": "j"}]}],
            [],
            [],
            [
                {"name": "K", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
                {"name": "j", "valueFrom": {"secretKeyRef": {"name": "s", "key": "j"}}},
            ],
            [],
            [],
            [],
        ),
        (
            [],
            [{"name": "c", "type": "volume", "mountPath": "/etc/c", "keys": [{"configMapKey": "a", "path": "b"}]}],
            [],
            [],
            [],
            [{"name": "configmap-c", "configMap": {"name": "c", "items": [{"key": "a", "path": "b"}]}}],
            [{"name": "configmap-c", "mountPath": "/etc/c", "readOnly": True}],
        ),
        (
            [{"name": "s", "type": "volume", "mountPath": "/s"}],
            [],
            [{"name": "data", "mountPath": "/d", "persistentVolumeClaim": {"claimName": "pvc", "readOnly": True}}],
            [],
            [],
            [
                {"name": "secret-s", "secret": {"secretName": "s"}},
                {"name": "data", "persistentVolumeClaim": {"claimName": "pvc", "readOnly": True}},
            ],
            [{"name": "secret-s", "mountPath": "/s", "readOnly": True}, {"name": "data", "mountPath": "/d", "readOnly": True}],
        ),
        (
            [],
            [],
            [
                {"name": "tmp", "mountPath": "/tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
                {"name": "w", "mountPath": "/w"},
            ],
            [],
            [],
            [{"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}, {"name": "w", "emptyDir": {}}],
            [{"name": "tmp", "mountPath": "/tmp"}, {"name": "w", "mountPath": "/w"}],
        ),
    ],
)
def test_project_refs(secrets, config_maps, volumes, env, env_from, pod_volumes, mounts):
    projection = project_refs(
        [SecretRefArgs.model_validate(s) for s in secrets],
        [ConfigMapRefArgs.model_validate(c) for c in config_maps],
        [VolumeArgs.model_validate(v) for v in volumes],
    )
    assert (projection.env, projection.env_from, projection.volumes, projection.volume_mounts) == (
        env,
        env_from,
        pod_volumes,
        mounts,
    )
