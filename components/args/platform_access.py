"""How a ``Platform`` is reached and first administered: its edge (an Ingress or a Gateway API
route to the gateway, with its certificate from cert-manager or a Secret) and the bootstrap of
its first administrator (a client certificate and/or a Keycloak password).

From the public repository ``OmniTrustILM/operator``: ``api/v1alpha1/platform_types.go`` at commit
3b4337259f918ade0139d564a83cdef851aea358 (``EdgeSpec``, ``EdgeTLSSpec``, ``CertManagerIssuerRef``,
``RegisterAdminSpec`` and their blocks), with their defaults, patterns and CEL rules. The rule
that an enabled edge needs a host is the platform's (``platform_spec``): it reads
``common.hostName`` too.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from components.args.base import Model
from components.args.fields import Annotations, DnsLabel, NonEmpty, SecretKeyName
from components.args.platform_blocks import ObjectName, PublicHost

__all__ = ["CertManagerIssuerRefArgs", "EdgeArgs", "RegisterAdminArgs"]

CERT_MANAGER_GROUP = "cert-manager.io"


class CertManagerIssuerRefArgs(Model):
    """An existing cert-manager Issuer or ClusterIssuer, or an external issuer by its kind and API group."""

    name: NonEmpty
    """The issuer's name."""
    kind: NonEmpty = "Issuer"
    """Issuer, ClusterIssuer, or an external issuer's own kind (with its `group`)."""
    group: str = CERT_MANAGER_GROUP
    """The issuer's API group; set it to an external issuer's, e.g. `awspca.cert-manager.io`."""

    @model_validator(mode="after")
    def _kind(self) -> CertManagerIssuerRefArgs:
        external = bool(self.group) and self.group != CERT_MANAGER_GROUP
        if self.kind not in ("Issuer", "ClusterIssuer") and not external:
            raise ValueError("kind: must be Issuer or ClusterIssuer unless group names an external issuer's API group")
        return self


class LetsEncryptArgs(Model):
    """The ACME (Let's Encrypt) account of the edge's certificate."""

    email: NonEmpty | None = None
    """The contact address registered with the ACME account (required for Let's Encrypt)."""
    environment: Literal["staging", "production"] = "production"
    """The ACME directory: staging or production."""


class EdgeTlsArgs(Model):
    """Where the edge's serving certificate comes from (never the certificate itself)."""

    source: Literal["internal", "letsEncrypt", "secret", "issuerRef"] = "internal"
    """A self-signed CA chain (internal), ACME, an existing issuer (issuerRef), or your own TLS Secret (secret)."""
    secret_ref: ObjectName | None = None
    """The TLS Secret: yours for source secret, else the one cert-manager fills (the operator's default: `ilm-ingress-tls`)."""
    lets_encrypt: LetsEncryptArgs | None = None
    """The ACME account; required for source letsEncrypt."""
    issuer_ref: CertManagerIssuerRefArgs | None = None
    """The issuer signing the certificate; required for source issuerRef."""

    @model_validator(mode="after")
    def _source_needs_its_block(self) -> EdgeTlsArgs:
        if self.source == "letsEncrypt" and (self.lets_encrypt is None or not self.lets_encrypt.email):
            raise ValueError("letsEncrypt.email: required when source is letsEncrypt")
        if self.source == "issuerRef" and self.issuer_ref is None:
            raise ValueError("issuerRef: required when source is issuerRef")
        if self.source == "secret" and not self.secret_ref:
            raise ValueError("secretRef: required when source is secret")
        return self


class GatewayParentRefArgs(Model):
    """An existing Gateway (and optionally one of its listeners) the route attaches to."""

    name: NonEmpty
    """The Gateway's name."""
    namespace: DnsLabel | None = None
    """The Gateway's namespace (default: the route's)."""
    section_name: NonEmpty | None = None
    """One listener of the Gateway, by name (default: every compatible listener)."""


class GatewayApiArgs(Model):
    """A Gateway API edge: a Gateway of its own, or a route on an existing one."""

    gateway_class_name: NonEmpty | None = None
    """Render a Gateway of this class (with the route and the certificate objects)."""
    parent_ref: GatewayParentRefArgs | None = None
    """Attach the route to an existing Gateway instead (it wins when both are set)."""


class EdgeArgs(Model):
    """The platform's edge: an Ingress or a Gateway API route to the gateway's consumer port."""

    enabled: bool = False
    """Render the edge."""
    type: Literal["ingress", "gatewayAPI"] = "ingress"
    """An Ingress, or a Gateway API HTTPRoute."""
    class_name: NonEmpty | None = None
    """The IngressClass, e.g. `nginx` (Ingress only)."""
    host: PublicHost | None = None
    """The public host name and TLS host (default: `common.hostName`)."""
    annotations: Annotations = {}
    """Further annotations on the Ingress (Ingress only)."""
    tls: EdgeTlsArgs | None = None
    """Where the serving certificate comes from; none: cert-manager's internal CA chain (as `source: internal`)."""
    gateway_api: Annotated[GatewayApiArgs | None, Field(alias="gatewayAPI")] = None
    """The Gateway API edge; for type gatewayAPI."""

    @model_validator(mode="after")
    def _gateway_api_attaches(self) -> EdgeArgs:
        attached = self.gateway_api is not None and (self.gateway_api.gateway_class_name or self.gateway_api.parent_ref)
        if self.type == "gatewayAPI" and not attached:
            raise ValueError("gatewayAPI.gatewayClassName or gatewayAPI.parentRef: required when type is gatewayAPI")
        return self


class AdminCertificateArgs(Model):
    """The client-certificate (mTLS) method of the first administrator's bootstrap."""

    enabled: bool = True
    """Bootstrap a certificate administrator."""
    source: Literal["provided", "generated"] = "provided"
    """Your Secret (provided), or a certificate cert-manager issues (generated)."""
    secret_ref: ObjectName | None = None
    """The administrator's kubernetes.io/tls Secret; required for source provided."""
    cert_key: SecretKeyName | None = None
    """The key holding the PEM certificate (the operator's default: `tls.crt`)."""
    private_key_key: SecretKeyName | None = None
    """The key holding the PEM private key (the operator's default: `tls.key`)."""
    issuer_ref: CertManagerIssuerRefArgs | None = None
    """The issuer of a generated certificate (default: the platform's internal CA)."""

    @model_validator(mode="after")
    def _provided_needs_secret(self) -> AdminCertificateArgs:
        if self.enabled and self.source == "provided" and not self.secret_ref:
            raise ValueError("secretRef: required when source is provided")
        return self


class AdminPasswordArgs(Model):
    """The password method of the bootstrap: a Keycloak realm user (managed Keycloak only)."""

    enabled: bool = False
    """Bootstrap a password administrator."""
    secret_ref: ObjectName | None = None
    """The Secret holding the password; required when enabled."""
    password_key: SecretKeyName = "password"
    """The key holding the password."""


class RegisterAdminArgs(Model):
    """The bootstrap of the first administrator, by certificate and/or password, with one identity."""

    enabled: bool = False
    """Bootstrap the first administrator."""
    username: NonEmpty | None = None
    """The login name: the certificate's common name and the realm user's username."""
    name: NonEmpty | None = None
    """The first or display name."""
    last_name: NonEmpty | None = None
    """The last name (without it Keycloak asks for it at the first login)."""
    email: NonEmpty | None = None
    """The email address."""
    certificate: AdminCertificateArgs | None = None
    """The certificate method (on when the block is left out: the operator's default)."""
    password: AdminPasswordArgs | None = None
    """The password method (off unless given with enabled true)."""

    @model_validator(mode="after")
    def _methods(self) -> RegisterAdminArgs:
        password = self.password is not None and self.password.enabled
        if password and self.password is not None and not self.password.secret_ref:
            raise ValueError("password.secretRef: required when password.enabled is true")
        if self.enabled and self.certificate is not None and not self.certificate.enabled and not password:
            raise ValueError("certificate.enabled: the bootstrap needs a method: enable certificate or password")
        return self
