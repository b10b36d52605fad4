"""A registration's administrator credentials read from the Secret its
``adminCredentials.secretRef`` names, like any reference: before anything is created."""

from __future__ import annotations

import base64

from pydantic.alias_generators import to_snake

from components.args.problems import InvalidArgumentsError
from components.args.registration_spec import AdminSecretRefArgs
from components.kube.object_reader import NotReadable, Reference, ReferenceReader
from components.kube.referenced_objects import NEED_A_CLUSTER, WITHOUT_KEYS, MissingReferencesError
from components.registration.contract import ADMIN_CREDENTIAL_KEYS

WHERE = "registration.adminCredentials.secretRef"


def key_setting(credential: str) -> str:
    """The ``secretRef`` field naming the key of a credential (``bearerToken``: ``bearer_token_key``)."""
    return f"{to_snake(credential)}_key"


def read_admin_credentials(ref_args: AdminSecretRefArgs, namespace: str, reader: ReferenceReader) -> dict[str, str]:
    """The credentials by the names the registration takes them (``contract.ADMIN_CREDENTIAL_KEYS``)."""
    ref = Reference("secret", ref_args.name, namespace)
    try:
        data = reader.read(ref)
    except NotReadable:
        raise InvalidArgumentsError(
            [f"{WHERE}: {ref.describe()} cannot be read without a cluster (render mode)"], heading=NEED_A_CLUSTER
        ) from None
    if data is None:
        raise MissingReferencesError([ref])
    values, problems = {}, []
    for credential in ADMIN_CREDENTIAL_KEYS:
        key = getattr(ref_args, key_setting(credential))
        if key is None:
            continue
        if key not in data:
            problems.append(f'{ref.describe()} has no key "{key}" ({WHERE})')
            continue
        try:
            values[credential] = base64.b64decode(data[key], validate=True).decode()
        except ValueError:
            problems.append(f'{ref.describe()}: key "{key}" is not base64-encoded text')
    if problems:
        raise InvalidArgumentsError(problems, heading=WITHOUT_KEYS)
    return values
