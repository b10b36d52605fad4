"""The edge per TLS source and type: what is issued, by whom, and what the user may not change."""

from __future__ import annotations

import pytest

from components.render.platform import render_platform

from ...support.operator_platform import args_with, find

EDGE = {"enabled": True, "className": "nginx", "host": "ilm.example.com"}


def edge_of(**edge):
    objects = render_platform(args_with(edge={**EDGE, **edge}))
    return [o for o in objects if o["apiVersion"].startswith(("cert-manager", "gateway.networking")) or o["kind"] == "Ingress"]


def kinds(objects):
    return sorted((o["kind"], o["metadata"]["name"]) for o in objects)


@pytest.mark.parametrize(
    ("tls", "expected"),
    [
        (
            None,
            [
                ("Certificate", "ca-certificate"),
                ("Ingress", "ilm-platform-core"),
                ("Issuer", "ca-issuer"),
                ("Issuer", "selfsigned-issuer"),
            ],
        ),
        (
            {"source": "letsEncrypt", "letsEncrypt": {"email": "ops@example.com"}},
            [("Ingress", "ilm-platform-core"), ("Issuer", "ca-issuer")],
        ),
        ({"source": "issuerRef", "issuerRef": {"name": "corp", "kind": "ClusterIssuer"}}, [("Ingress", "ilm-platform-core")]),
        ({"source": "secret", "secretRef": "own-tls"}, [("Ingress", "ilm-platform-core")]),
    ],
)
def test_each_tls_source_renders_its_issuers(tls, expected):
    assert kinds(edge_of(**({"tls": tls} if tls else {}))) == expected


def test_lets_encrypt_staging_solves_through_the_ingress_class():
    issuer = find(
        edge_of(tls={"source": "letsEncrypt", "letsEncrypt": {"email": "ops@example.com", "environment": "staging"}}),
        "Issuer",
        "ca-issuer",
    )
    acme = issuer["spec"]["acme"]
    assert acme["server"].startswith("https://acme-staging-v02.") and acme["privateKeySecretRef"] == {
        "name": "letsencrypt-staging"
    }
    assert acme["solvers"] == [{"http01": {"ingress": {"class": "nginx"}}}] and acme["email"] == "ops@example.com"


def test_an_issuer_of_another_group_is_named_and_the_user_cannot_redirect_it():
    tls = {"source": "issuerRef", "issuerRef": {"name": "pca", "kind": "ClusterIssuer", "group": "awspca.cert-manager.io"}}
    ingress = find(edge_of(tls=tls, annotations={"cert-manager.io/issuer": "evil", "team": "a"}), "Ingress", "ilm-platform-core")
    assert ingress["metadata"]["annotations"] == {
        "cert-manager.io/cluster-issuer": "pca",
        "cert-manager.io/issuer-kind": "ClusterIssuer",
        "cert-manager.io/issuer-group": "awspca.cert-manager.io",
        "team": "a",
    }


def test_a_secret_is_served_as_given_and_the_host_defaults_to_common():
    objects = render_platform(
        args_with(
            edge={"enabled": True, "tls": {"source": "secret", "secretRef": "own-tls"}}, common={"hostName": "p.example.com"}
        )
    )
    ingress = find(objects, "Ingress", "ilm-platform-core")
    assert ingress["spec"]["tls"] == [{"hosts": ["p.example.com"], "secretName": "own-tls"}]
    assert "ingressClassName" not in ingress["spec"] and "annotations" not in ingress["metadata"]


def test_gateway_api_owns_a_gateway_or_attaches_to_one():
    owned = edge_of(type="gatewayAPI", gatewayAPI={"gatewayClassName": "envoy"})
    assert kinds(owned)[:2] == [("Certificate", "ca-certificate"), ("Gateway", "platform-edge")]
    gateway = find(owned, "Gateway", "platform-edge")
    assert gateway["spec"]["gatewayClassName"] == "envoy"
    assert [(lis["port"], lis["hostname"]) for lis in gateway["spec"]["listeners"]] == [
        (80, "ilm.example.com"),
        (443, "ilm.example.com"),
    ]
    assert gateway["metadata"]["annotations"]["cert-manager.io/issuer"] == "ca-issuer"
    route = find(owned, "HTTPRoute", "ilm-platform-core")
    assert route["spec"]["parentRefs"] == [{"name": "platform-edge"}]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"name": "api-gateway", "port": 8000}]
    attached = edge_of(type="gatewayAPI", gatewayAPI={"parentRef": {"name": "shared", "namespace": "gw", "sectionName": "https"}})
    assert kinds(attached) == [("HTTPRoute", "ilm-platform-core")]
    assert attached[0]["spec"]["parentRefs"] == [{"name": "shared", "namespace": "gw", "sectionName": "https"}]


def test_a_disabled_edge_renders_nothing():
    objects = render_platform(args_with(edge={"enabled": False, "host": "ilm.example.com"}))
    assert not [o for o in objects if o["kind"] in ("Ingress", "Issuer", "Certificate", "Gateway", "HTTPRoute")]
