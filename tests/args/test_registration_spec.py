"""``args.registration_spec``: the registration block restates none of the contract's facts."""

from __future__ import annotations

import typing

from components.args.registration_spec import RegistrationArgs
from components.registration import contract

OWN_TEXT = {"route", "adminCredentials", "platform"}
"""Fields whose meaning in the block differs from the input of that name (``auto``; a Secret)."""


def test_every_input_of_the_block_is_described_by_the_contract():
    described = {f.alias: f.description for f in RegistrationArgs.model_fields.values() if f.alias not in OWN_TEXT}
    assert described == {alias: contract.doc(alias) for alias in described}
    assert len(described) >= 14


def test_the_choices_and_bounds_are_the_contracts():
    fields = RegistrationArgs.model_fields
    assert typing.get_args(fields["auth_type"].annotation) == contract.AUTH_TYPES
    assert typing.get_args(fields["version"].annotation) == typing.get_args(contract.ConnectorVersion)
    choices = typing.get_args(fields["route"].annotation)
    assert choices == ("auto", *typing.get_args(contract.Route))
    bound = next(m for m in fields["deadline_seconds"].metadata if hasattr(m, "le"))
    assert bound.le == contract.MAX_SECONDS
