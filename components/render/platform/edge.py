"""The platform's edge: an Ingress (or Gateway API's HTTPRoute, and a Gateway of its own unless
it attaches to one) routing the public host to the gateway's consumer port, and the
cert-manager objects its serving certificate's source needs.

TLS sources: ``internal`` (a self-signed CA chain: ``selfsigned-issuer``, ``ca-certificate``,
``ca-issuer``), ``letsEncrypt`` (an ACME ``ca-issuer``), ``issuerRef`` (the user's issuer,
named in the shim's annotations) and ``secret`` (the user's Secret, nothing issued).
"""

from __future__ import annotations

from typing import Any

from components.args.platform_access import EdgeTlsArgs
from components.render.objects import Obj
from components.render.platform.gateway import CONSUMER_PORT, platform_host
from components.render.platform.resolve import Platform, metadata

CERT_MANAGER = "cert-manager.io/v1"
GATEWAY_API = "gateway.networking.k8s.io/v1"
DEFAULT_TLS_SECRET = "ilm-ingress-tls"
OWNED_GATEWAY = "platform-edge"
ISSUER, CLUSTER_ISSUER = "Issuer", "ClusterIssuer"
ACME_SERVERS = {
    "production": "https://acme-v02.api.letsencrypt.org/directory",
    "staging": "https://acme-staging-v02.api.letsencrypt.org/directory",
}
SHIM_KEYS = (
    "cert-manager.io/issuer",
    "cert-manager.io/cluster-issuer",
    "cert-manager.io/issuer-kind",
    "cert-manager.io/issuer-group",
)
"""The annotations that tell cert-manager which issuer signs: set by the source alone, never by the user's."""


def _tls(platform: Platform) -> EdgeTlsArgs:
    edge = platform.args.edge
    return (edge.tls if edge is not None else None) or EdgeTlsArgs()


def tls_secret(platform: Platform) -> str:
    return _tls(platform).secret_ref or DEFAULT_TLS_SECRET


def shim_annotations(platform: Platform) -> dict[str, str]:
    tls = _tls(platform)
    if tls.source in ("internal", "letsEncrypt"):
        return {"cert-manager.io/issuer": "ca-issuer", "cert-manager.io/issuer-kind": ISSUER}
    if tls.source != "issuerRef" or tls.issuer_ref is None:
        return {}
    ref = tls.issuer_ref
    named = "cert-manager.io/cluster-issuer" if ref.kind == CLUSTER_ISSUER else "cert-manager.io/issuer"
    annotations = {"cert-manager.io/issuer-kind": ref.kind, named: ref.name}
    if ref.group and ref.group != "cert-manager.io":
        annotations["cert-manager.io/issuer-group"] = ref.group
    return annotations


def _object(platform: Platform, api_version: str, kind: str, name: str, role: str, spec: Obj) -> Obj:
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata(platform, name, role), "spec": spec}


def cert_manager_objects(platform: Platform) -> list[Obj]:
    tls = _tls(platform)
    if tls.source == "internal":
        certificate = {
            "isCA": True,
            "commonName": "ca",
            "secretName": "ca-keypair",
            "privateKey": {"algorithm": "RSA", "size": 4096},
            "issuerRef": {"name": "selfsigned-issuer", "kind": ISSUER},
        }
        return [
            _object(platform, CERT_MANAGER, ISSUER, "selfsigned-issuer", "selfsigned-issuer", {"selfSigned": {}}),
            _object(platform, CERT_MANAGER, "Certificate", "ca-certificate", "ca", certificate),
            _object(platform, CERT_MANAGER, ISSUER, "ca-issuer", "ca-issuer", {"ca": {"secretName": "ca-keypair"}}),
        ]
    if tls.source == "letsEncrypt":
        environment = tls.lets_encrypt.environment if tls.lets_encrypt else "production"
        edge = platform.args.edge
        acme = {
            "server": ACME_SERVERS["production" if environment == "production" else "staging"],
            "email": (tls.lets_encrypt.email if tls.lets_encrypt else None) or "",
            "privateKeySecretRef": {"name": f"letsencrypt-{environment}"},
            "solvers": [{"http01": {"ingress": {"class": (edge.class_name if edge else None) or ""}}}],
        }
        return [_object(platform, CERT_MANAGER, ISSUER, "ca-issuer", "ca-issuer", {"acme": acme})]
    return []


def _ingress(platform: Platform) -> Obj:
    edge, host = platform.args.edge, platform_host(platform) or ""
    assert edge is not None
    annotations = {**shim_annotations(platform), **{k: v for k, v in edge.annotations.items() if k not in SHIM_KEYS}}
    meta = metadata(platform, f"{platform.name}-platform-core", "ilm-platform-core")
    if annotations:
        meta["annotations"] = annotations
    backend = {"service": {"name": "api-gateway", "port": {"number": CONSUMER_PORT}}}
    spec: dict[str, Any] = {
        "rules": [{"host": host, "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": backend}]}}],
        "tls": [{"hosts": [host], "secretName": tls_secret(platform)}],
    }
    if edge.class_name:
        spec["ingressClassName"] = edge.class_name
    return {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": meta, "spec": spec}


def _http_route(platform: Platform) -> Obj:
    edge, host = platform.args.edge, platform_host(platform)
    parent = edge.gateway_api.parent_ref if edge and edge.gateway_api else None
    reference: dict[str, str] = {"name": OWNED_GATEWAY}
    if parent is not None:
        reference = {"name": parent.name}
        reference.update({k: v for k, v in (("namespace", parent.namespace), ("sectionName", parent.section_name)) if v})
    rule = {
        "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
        "backendRefs": [{"name": "api-gateway", "port": CONSUMER_PORT}],
    }
    spec: dict[str, Any] = {"parentRefs": [reference], "rules": [rule]}
    if host:
        spec["hostnames"] = [host]
    return _object(platform, GATEWAY_API, "HTTPRoute", f"{platform.name}-platform-core", OWNED_GATEWAY, spec)


def _gateway(platform: Platform) -> Obj:
    edge, host = platform.args.edge, platform_host(platform)
    same = {"namespaces": {"from": "Same"}}
    listeners: list[dict[str, Any]] = [
        {"name": "http", "protocol": "HTTP", "port": 80, "allowedRoutes": same},
        {
            "name": "https",
            "protocol": "HTTPS",
            "port": 443,
            "tls": {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": tls_secret(platform)}]},
            "allowedRoutes": same,
        },
    ]
    if host:
        for listener in listeners:
            listener["hostname"] = host
    class_name = (edge.gateway_api.gateway_class_name if edge and edge.gateway_api else None) or ""
    gateway = _object(
        platform, GATEWAY_API, "Gateway", OWNED_GATEWAY, OWNED_GATEWAY, {"gatewayClassName": class_name, "listeners": listeners}
    )
    if shim := shim_annotations(platform):
        gateway["metadata"]["annotations"] = shim
    return gateway


def edge_objects(platform: Platform) -> list[Obj]:
    """The edge's objects; none when it is off."""
    edge = platform.args.edge
    if edge is None or not edge.enabled:
        return []
    if edge.type != "gatewayAPI":
        return [_ingress(platform), *cert_manager_objects(platform)]
    if edge.gateway_api is not None and edge.gateway_api.parent_ref is not None:
        return [_http_route(platform)]
    return [_http_route(platform), _gateway(platform), *cert_manager_objects(platform)]
