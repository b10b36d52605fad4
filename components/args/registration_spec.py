"""A connector's ``registration`` block: the platform, the connector's record there, and an
administrator's credentials for the calls beyond registering.

The defaults of the retry schedule and the other settings the registration resource takes are
that resource's (``registration.contract``): one table, read here.
"""

from __future__ import annotations

import ssl
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, model_validator

from components.args.base import Model, NotInPackage
from components.args.fields import STRING, DnsLabel, NonEmpty, SecretKeyName, StrInput, str_input
from components.args.kube_schema import bounded
from components.bounded_http.header_rules import HEADER_RULE, PEM_MARK, header_value_problem
from components.registration import contract
from components.registration.attributes import content_problem
from components.registration.rules import UUID_RULE, admin_over_http_problem, is_uuid, url_problem

Seconds = Annotated[float, Field(gt=0, le=contract.MAX_SECONDS)]


def _told(config: str) -> Any:
    """The field's description: the contract's for the input of that name (one text, every audience)."""
    return Field(description=contract.doc(config))


def _uuid(value: str) -> str:
    """A UUID (8-4-4-4-12 hexadecimal digits)."""
    if not is_uuid(value):
        raise ValueError(UUID_RULE)
    return value


def header_value(value: Any) -> Any:
    """Printable ASCII without spaces or line breaks."""
    if isinstance(value, str) and header_value_problem(value):
        raise ValueError(HEADER_RULE)
    return str_input(value)


def _ca_bundle(value: str) -> str:
    """PEM certificates, or the path of a file of them."""
    if PEM_MARK in value:
        try:
            ssl.create_default_context(cadata=value)
        except (ssl.SSLError, ValueError):
            raise ValueError("must be PEM certificates (this text does not load as one), or a file's path") from None
    elif len(value) > 4096 or "\n" in value:
        raise ValueError("must be PEM certificates, or a file's path")
    return value


Uuid = Annotated[str, AfterValidator(_uuid)]
HeaderValue = Annotated[Any, AfterValidator(header_value), STRING]
CaBundle = Annotated[str, AfterValidator(_ca_bundle)]


def _attribute_content(value: Any) -> Any:
    """A value or an object (the operator's form), or a list of content items, each an object with `data` (the platform's)."""
    problem = content_problem(value)
    if problem:
        raise ValueError(problem)
    return value


class AttributeArgs(Model):
    """One attribute sent with the registration: a name and its content, in the operator's form
    or the platform's."""

    name: NonEmpty
    """The attribute's name (a custom attribute's must be the name of an attribute definition on the platform)."""
    content: Annotated[JsonValue, BeforeValidator(bounded), AfterValidator(_attribute_content)] = None
    """The attribute's content: a value or an object, as the operator's samples write it (sent as
    `[{data: <value>}]`; an object with `data` is sent as `[<object>]`), or a list of content
    items as the platform reads them (`[{data: ..., reference: ...}, ...]`, sent as is); none is `[]`."""


class AdminSecretRefArgs(Model):
    """A Secret in the connector's namespace holding the administrator's credentials."""

    name: DnsLabel
    """The Secret's name."""
    bearer_token_key: SecretKeyName | None = None
    """The key holding a bearer token."""
    client_certificate_key: SecretKeyName | None = None
    """The key holding a PEM client certificate."""
    client_key_key: SecretKeyName | None = None
    """The key holding the certificate's PEM private key."""

    @model_validator(mode="after")
    def _one_kind(self) -> AdminSecretRefArgs:
        pair = (self.client_certificate_key, self.client_key_key)
        if bool(self.bearer_token_key) == any(pair):
            raise ValueError("set either bearerTokenKey, or clientCertificateKey and clientKeyKey")
        if any(pair) and not all(pair):
            raise ValueError("clientCertificateKey and clientKeyKey go together")
        return self


class AdminCredentialsArgs(Model):
    """An administrator of the platform, for the calls beyond registering: a bearer JWT, or a
    client certificate and key (PEM) for mTLS at the platform's gateway, given as values
    (secret config, or Outputs from Python) or as a Secret to read. Always secret in state."""

    bearer_token: HeaderValue | None = None
    """An administrator's bearer token."""
    client_certificate: StrInput | None = None
    """An administrator's PEM client certificate."""
    client_key: StrInput | None = None
    """The client certificate's PEM private key."""
    secret_ref: AdminSecretRefArgs | None = None
    """A Secret to read the credentials from instead."""

    @model_validator(mode="after")
    def _one_source(self) -> AdminCredentialsArgs:
        given = [v is not None for v in (self.bearer_token, self.client_certificate, self.client_key)]
        if self.secret_ref is not None and any(given):
            raise ValueError("set either secretRef or the credential values, not both")
        if self.secret_ref is None:
            if self.bearer_token is not None and any(given[1:]):
                raise ValueError("set either bearerToken, or clientCertificate and clientKey")
            if self.bearer_token is None and not all(given[1:]):
                raise ValueError("set bearerToken, or clientCertificate and clientKey, or secretRef")
        return self


class RegistrationArgs(Model):
    """The connector's registration with the platform: done once, its uuid kept in state. A field
    that is an input of the registration takes its description from the contract's table."""

    platform_url: Annotated[StrInput | None, _told("platformUrl")] = None
    platform: Annotated[DnsLabel | None, NotInPackage()] = None
    """Instead of platformUrl, in a stack file: the name of a platform of the same stack to register
    with (its core's in-cluster API; the registration waits until that core is ready). A program
    passes a ``PlatformComponent``'s ``api_endpoint`` as platformUrl instead."""
    name: Annotated[NonEmpty, _told("name")]
    auth_type: Annotated[contract.AuthType, _told("authType")]
    auth_attributes: Annotated[list[AttributeArgs], _told("authAttributes")] = []
    custom_attributes: Annotated[list[AttributeArgs], _told("customAttributes")] = []
    version: Annotated[contract.ConnectorVersion, _told("version")] = contract.default("connector_version")
    retry_initial_seconds: Annotated[Seconds, _told("retryInitialSeconds")] = contract.default("retry_initial_seconds")
    retry_max_seconds: Annotated[Seconds, _told("retryMaxSeconds")] = contract.default("retry_max_seconds")
    deadline_seconds: Annotated[Seconds, _told("deadlineSeconds")] = contract.default("deadline_seconds")
    ca_bundle: Annotated[CaBundle | None, _told("caBundle")] = None
    insecure_skip_tls_verify: Annotated[bool, _told("insecureSkipTlsVerify")] = contract.default("insecure_skip_tls_verify")
    route: contract.RouteSetting = "auto"
    """How to reach the platform: direct, through the API server's service proxy, or auto (chosen by the URL)."""
    uuid: Annotated[Uuid | None, _told("uuid")] = None
    admin_credentials: AdminCredentialsArgs | None = None
    """An administrator, for adopting, approving and de-registering (never sent with the register call)."""
    send_admin_credentials_over_http: Annotated[bool, _told("sendAdminCredentialsOverHttp")] = contract.default(
        "send_admin_credentials_over_http"
    )
    approve: Annotated[bool, _told("approve")] = contract.default("approve")
    deregister_on_destroy: Annotated[bool, _told("deregisterOnDestroy")] = contract.default("deregister_on_destroy")

    @model_validator(mode="after")
    def _rules(self) -> RegistrationArgs:
        if (self.platform_url is None) == (self.platform is None):
            raise ValueError("set platformUrl or platform (a platform of the same stack file), one of them")
        for setting, wanted in (("approve", self.approve), ("deregisterOnDestroy", self.deregister_on_destroy)):
            if wanted and self.admin_credentials is None:
                raise ValueError(f"{setting}: true needs adminCredentials (only an administrator may do it)")
        if isinstance(self.platform_url, str):
            problem = url_problem(self.platform_url)
            if problem:
                raise ValueError(f"platformUrl {problem}")
            over_http = admin_over_http_problem(self.platform_url, self.send_admin_credentials_over_http)
            if over_http and self.admin_credentials is not None:
                raise ValueError(f"adminCredentials {over_http}")
        if self.auth_type != "none" and not self.auth_attributes:
            raise ValueError(f"authAttributes are required when authType is {self.auth_type}")
        return self
