"""``kube.admin_secret``: a registration's administrator credentials read from their Secret."""

from __future__ import annotations

import base64

import pytest

from components.args.problems import InvalidArgumentsError
from components.args.registration_spec import AdminSecretRefArgs
from components.kube.admin_secret import read_admin_credentials
from components.kube.object_reader import NotReadable
from components.kube.referenced_objects import MissingReferencesError

from ..support.mocks import StaticReader

SECRET = ("secret", "ilm", "platform-admin")


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    ("ref", "data", "expected"),
    [
        ({"bearerTokenKey": "token"}, {"token": b64("jwt-value")}, {"bearerToken": "jwt-value"}),
        (
            {"clientCertificateKey": "tls.crt", "clientKeyKey": "tls.key"},
            {"tls.crt": b64("CERT"), "tls.key": b64("KEY"), "other": b64("x")},
            {"clientCertificate": "CERT", "clientKey": "KEY"},
        ),
    ],
)
def test_the_credentials_by_the_names_the_registration_takes(ref, data, expected):
    args = AdminSecretRefArgs.model_validate({"name": "platform-admin", **ref})
    assert read_admin_credentials(args, "ilm", StaticReader({SECRET: data})) == expected


@pytest.mark.parametrize(
    ("data", "phrase"),
    [
        ({"other": b64("x")}, 'has no key "token" (registration.adminCredentials.secretRef)'),
        ({"token": "not base64 !"}, 'key "token" is not base64-encoded text'),
    ],
)
def test_a_secret_without_usable_keys_names_the_key_never_the_value(data, phrase):
    args = AdminSecretRefArgs.model_validate({"name": "platform-admin", "bearerTokenKey": "token"})
    with pytest.raises(InvalidArgumentsError) as raised:
        read_admin_credentials(args, "ilm", StaticReader({SECRET: data}))
    assert phrase in str(raised.value) and "not base64 !" not in str(raised.value)


def test_a_missing_secret_and_no_cluster_are_each_named():
    args = AdminSecretRefArgs.model_validate({"name": "platform-admin", "bearerTokenKey": "token"})
    with pytest.raises(MissingReferencesError):
        read_admin_credentials(args, "ilm", StaticReader())

    class NoCluster:
        def read(self, ref):
            raise NotReadable

    with pytest.raises(InvalidArgumentsError, match="cannot be read without a cluster"):
        read_admin_credentials(args, "ilm", NoCluster())
