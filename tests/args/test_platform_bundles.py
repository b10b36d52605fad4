"""The bundles as data, and the version a run deploys decided as the operator decides it."""

from __future__ import annotations

import typing

import pytest

from components.args.platform_bundles import (
    BUNDLES,
    DEFAULT_VERSION,
    PlatformVersion,
    decided_version,
    external_migration_problem,
    version_key,
)


def test_every_carried_version_has_its_bundle_and_the_default_is_released():
    assert tuple(BUNDLES) == typing.get_args(PlatformVersion)
    assert BUNDLES[DEFAULT_VERSION].released and not BUNDLES["2.20.0"].released
    assert BUNDLES["2.19.0"].images["time-quality-monitor"].repository == "ilm-private"
    assert "time-quality-monitor" not in BUNDLES["2.18.0"].images


@pytest.mark.parametrize(
    ("asked", "running", "decided"),
    [
        (None, None, "2.19.0"),  # a new platform: the default
        (None, "2.18.0", "2.18.0"),  # kept: a later default never upgrades a running platform
        ("2.19.0", "2.18.0", "2.19.0"),  # an upgrade asked for
        ("2.18.0", "2.18.0", "2.18.0"),
        ("2.20.0", None, "2.20.0"),  # a preview, for a new platform, by name
        ("2.20.0", "2.20.0", "2.20.0"),
        ("2.19.0", "2.17.0", "2.19.0"),  # from a version not carried, by name
    ],
)
def test_the_version_deployed(asked, running, decided):
    assert decided_version(asked, running) == decided


@pytest.mark.parametrize(
    ("asked", "running", "problem"),
    [
        ("2.18.0", "2.19.0", "2.18.0 is older than the running 2.19.0: a platform is never downgraded"),
        ("2.20.0", "2.19.0", "2.20.0 is a preview: a running platform (2.19.0) is not upgraded onto it"),
        (None, "2.17.0", "the running version 2.17.0 is not one this library carries (2.18.0, 2.19.0, 2.20.0): set version"),
    ],
)
def test_what_the_operator_refuses_is_refused_naming_the_versions(asked, running, problem):
    with pytest.raises(ValueError) as caught:
        decided_version(asked, running)
    assert str(caught.value) == problem


def test_versions_order_by_number():
    assert version_key("2.9.0") < version_key("2.10.0")


def test_only_a_version_that_drops_an_exchange_needs_a_migration():
    assert external_migration_problem("2.18.0", "2.19.0", None) is not None
    assert external_migration_problem("2.18.0", "2.19.0", "2.19.0") is None
    assert external_migration_problem("2.19.0", "2.20.0", None) is None  # the same exchanges
    assert external_migration_problem(None, "2.19.0", None) is None
    assert external_migration_problem("2.17.0", "2.19.0", None) is None  # not carried: decided_version refuses it
