"""``kube.kube_access``: the cluster's credentials from a kubeconfig (its path or its content), or none."""

from __future__ import annotations

import pytest

from components.kube.kube_access import NoClusterCredentials, has_credentials, is_kubeconfig_content, load_access
from tests.support.samples import kubeconfig_text


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, False), ("", False), ("~/.kube/config", False), ("apiVersion: v1\nkind: Config\n", True)],
)
def test_is_kubeconfig_content(value, expected):
    assert is_kubeconfig_content(value) is expected


def test_load_access_from_content():
    access = load_access(kubeconfig_text("https://127.0.0.1:6443", token="abc"))
    assert (access.host, access.authorization, access.client_cert, access.verify) == (
        "https://127.0.0.1:6443",
        "Bearer abc",
        None,
        True,
    )


def test_load_access_from_a_path(tmp_path):
    path = tmp_path / "config"
    path.write_text(kubeconfig_text("https://10.0.0.1:6443/"))
    assert load_access(str(path)).host == "https://10.0.0.1:6443"
    assert has_credentials(str(path))


def test_no_credentials_is_one_error(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    with pytest.raises(NoClusterCredentials, match="needs cluster credentials"):
        load_access(str(tmp_path / "missing"))
    assert not has_credentials(str(tmp_path / "missing"))
