"""Credentials given as plain stack config: named once per run, with the command that makes
each secret. Plain config is kept in clear in the stack's state too (the engine records the
project's config as the inputs of the registrations' provider), so the warning says so."""

from __future__ import annotations

import pulumi
from pydantic.alias_generators import to_snake

from components.app.secret_config import is_secure, secure_paths
from components.args.connector_spec import ConnectorEntry
from components.kube.kube_access import is_kubeconfig_content
from components.registration import contract

PLAIN_CREDENTIAL = (
    "{path} is a credential in plain stack config, and plain config is also copied in clear into the stack's "
    "state (as the inputs of the registrations' provider). Make it secret: pulumi config set --path --secret '{path}' <value>"
)


def credential_paths(entries: list[ConnectorEntry]) -> list[str]:
    """Where the connectors' config holds a credential: attribute contents, admin credentials."""
    paths = []
    for index, entry in enumerate(entries):
        reg = entry.spec.registration
        if reg is None:
            continue
        base = f"connectors[{index}].spec.registration"
        attributes = enumerate(reg.auth_attributes)
        paths += [f"{base}.authAttributes[{i}].content" for i, a in attributes if a.content not in (None, "")]
        given = reg.admin_credentials
        if given is not None:
            keys = contract.ADMIN_CREDENTIAL_KEYS
            paths += [f"{base}.adminCredentials.{key}" for key in keys if getattr(given, to_snake(key)) is not None]
    return paths


PLAIN_IN_FILE = (
    "{path} is a credential in plain text in the stack file (the state keeps the key as ciphertext, as "
    "another value of it is secret). Make it secret: pulumi config set --path --secret '{path}' <value>"
)


def warn_of_plain_credentials(entries: list[ConnectorEntry], config: pulumi.Config) -> None:
    """Once per run, each credential given as plain (not secret) stack config, by its path."""
    message, paths = PLAIN_CREDENTIAL, credential_paths(entries)
    if pulumi.runtime.is_config_secret("connectors:connectors"):
        secure = secure_paths("connectors")
        message, paths = PLAIN_IN_FILE, [] if secure is None else [p for p in paths if not is_secure(p, secure)]
    for path in paths:
        pulumi.log.warn(message.format(path=path))
    if is_kubeconfig_content(config.get("kubeconfig")) and not pulumi.runtime.is_config_secret("connectors:kubeconfig"):
        pulumi.log.warn(PLAIN_CREDENTIAL.format(path="kubeconfig"))
