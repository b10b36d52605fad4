"""The bundle of each platform version: the images it runs and the names it wires, as data.

A platform version selects exactly one bundle (the reference operator's ``pkg/bom``): which
image and tag each component runs, the environment variables whose names changed between
versions, the broker's default virtual host, and the managed infrastructure's default engine
versions. Everything else a platform renders is the same for every version here, and lives in
the renderers. A new version is a new entry in ``BUNDLES``.

From the public repository ``OmniTrustILM/operator``: ``pkg/bom/bom.go`` at commit
a5f33843a2b4cbd591f4db901b7a64b0bbd9597c (2.19.0 the default, 2.20.0 a preview). 2.17.0, the
release before the rebrand, is not carried: its wiring differs throughout and no variant here
renders it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

from components.args.broker_topology import TOPOLOGY_2180, TOPOLOGY_2190, Topology

__all__ = [
    "BUNDLES",
    "DEFAULT_REGISTRY",
    "DEFAULT_REPOSITORY",
    "DEFAULT_VERSION",
    "VERSION_ANNOTATION",
    "Bundle",
    "BundleImage",
    "PlatformVersion",
    "Wiring",
    "decided_version",
    "version_key",
]

PlatformVersion = Literal["2.18.0", "2.19.0", "2.20.0"]
"""The platform versions whose bundles the library carries."""
DEFAULT_VERSION: PlatformVersion = "2.19.0"
"""What a new platform without ``version`` runs (the operator's ``DefaultVersion``)."""
VERSION_ANNOTATION = "otilm.com/platform-version"
"""Where a platform's pods say the version they run (the operator's annotation): how the version
running now is read back."""
DEFAULT_REGISTRY = "hub.omnitrustregistry.com"
DEFAULT_REPOSITORY = "ilm"


@dataclass(frozen=True)
class BundleImage:
    """One component's published image: its name, its tag, and its repository when not ``ilm``."""

    name: str
    tag: str
    repository: str | None = None


@dataclass(frozen=True)
class Wiring:
    """The names a version wires that differ between versions (``None``: not in this version)."""

    logging_level_env: str
    """Core's, the scheduler's and provisioning's log level variable."""
    time_quality_env: str | None
    """Core's switch of the time-quality messaging integration."""
    instance_id_env: str | None
    """Core's instance id (the serial numbers' prefix)."""
    exchange: str
    """The platform's own exchange."""
    proxy_exchange: str
    """The exchange proxies' queues are bound to."""

    @property
    def exchanges(self) -> tuple[str, str]:
        return self.exchange, self.proxy_exchange


@dataclass(frozen=True)
class Bundle:
    """Everything version-specific of one platform version."""

    version: PlatformVersion
    images: MappingProxyType[str, BundleImage]
    """By the component's name (``core``, ``api-gateway``, ``opa``, ``curl``...)."""
    wiring: Wiring
    default_virtual_host: str
    """The broker's virtual host a managed broker gets when ``messaging.virtualHost`` is unset."""
    topology: Topology
    """What a managed broker declares: users, exchanges, queues, bindings."""
    released: bool
    """False for a preview: reached only by naming it, never by an upgrade of a running platform."""
    postgresql_version: str
    rabbitmq_version: str
    keycloak_version: str


_IMAGES_2180 = {
    "core": BundleImage("core", "2.18.0"),
    "auth": BundleImage("auth", "1.6.3"),
    "auth-opa-policies": BundleImage("auth-opa-policies", "1.4.1"),
    "proxy": BundleImage("proxy", "1.0.0"),
    "opa": BundleImage("opa", "1.10.0-static"),
    "curl": BundleImage("curl", "8.16.0"),
    "scheduler": BundleImage("scheduler", "1.1.0"),
    "fe-administrator": BundleImage("frontend-administrator", "2.18.0"),
    "utils": BundleImage("utils-service", "1.0.2"),
    "api-gateway": BundleImage("kong", "3.9.1"),
    "provisioning": BundleImage("provisioning-rabbitmq", "1.0.0"),
    "keycloak-theme": BundleImage("keycloak-theme", "0.1.4"),
}
_IMAGES_2190 = {
    **_IMAGES_2180,
    "core": BundleImage("core", "2.19.0"),
    "auth": BundleImage("auth", "1.7.0"),
    "scheduler": BundleImage("scheduler", "1.1.1"),
    "fe-administrator": BundleImage("frontend-administrator", "2.19.0"),
    "time-quality-monitor": BundleImage("time-quality-monitor", "1.0.0", repository="ilm-private"),
}
_IMAGES_2200 = {
    **_IMAGES_2190,
    "core": BundleImage("core", "2.20.0"),
    "fe-administrator": BundleImage("frontend-administrator", "2.20.0"),
}

_WIRING_2180 = Wiring(
    logging_level_env="LOGGING_LEVEL_COM_CZERTAINLY",
    time_quality_env=None,
    instance_id_env=None,
    exchange="czertainly",
    proxy_exchange="czertainly-proxy",
)
_WIRING_2190 = replace(
    _WIRING_2180,
    logging_level_env="LOGGING_LEVEL_COM_OTILM",
    time_quality_env="MESSAGING_TIME_QUALITY_ENABLED",
    instance_id_env="PLATFORM_INSTANCE_ID",
    exchange="ilm",
    proxy_exchange="ilm-proxy",
)
_ENGINES = {"postgresql_version": "18", "rabbitmq_version": "4.3.1", "keycloak_version": "26.6.3"}

BUNDLES: MappingProxyType[str, Bundle] = MappingProxyType(
    {
        "2.18.0": Bundle("2.18.0", MappingProxyType(_IMAGES_2180), _WIRING_2180, "czertainly", TOPOLOGY_2180, True, **_ENGINES),
        "2.19.0": Bundle("2.19.0", MappingProxyType(_IMAGES_2190), _WIRING_2190, "/", TOPOLOGY_2190, True, **_ENGINES),
        "2.20.0": Bundle("2.20.0", MappingProxyType(_IMAGES_2200), _WIRING_2190, "/", TOPOLOGY_2190, False, **_ENGINES),
    }
)
"""Every carried version's bundle (a test holds the keys to ``PlatformVersion``)."""


def version_key(version: str) -> tuple[int, ...]:
    """A version's order: numerically per segment (2.9.0 before 2.10.0)."""
    return tuple(int(part) for part in version.split("."))


def decided_version(asked: str | None, running: str | None) -> str:
    """The version a run deploys, as the operator decides it: the one asked for; unset, the
    running one (a later default never upgrades a running platform), else the default.
    ``ValueError`` (naming the versions) for a downgrade, a running version not carried here,
    and an upgrade of a running platform onto a preview."""
    if running is not None and running not in BUNDLES and asked is None:
        raise ValueError(f"the running version {running} is not one this library carries ({', '.join(BUNDLES)}): set version")
    if asked is None:
        return running or DEFAULT_VERSION
    if running is not None and version_key(asked) < version_key(running):
        raise ValueError(f"{asked} is older than the running {running}: a platform is never downgraded")
    if running is not None and asked != running and not BUNDLES[asked].released:
        raise ValueError(f"{asked} is a preview: a running platform ({running}) is not upgraded onto it")
    return asked


def external_migration_problem(running: str | None, decided: str, acknowledged: str | None) -> str | None:
    """Why an upgrade of a platform on a broker of its own may not go on yet, as the operator's
    ``ExternalMessagingMigrationRequired``: the new version no longer publishes to an exchange the
    running one does, and ``migrationAcknowledgedForVersion`` does not name the new version."""
    if running is None or running not in BUNDLES or running == decided or acknowledged == decided:
        return None
    before, after = BUNDLES[running].wiring.exchanges, BUNDLES[decided].wiring.exchanges
    if set(before) <= set(after):
        return None
    return (
        f"the upgrade from {running} to {decided} moves the platform from the exchanges {', '.join(before)} to"
        f" {', '.join(after)} on a broker this stack does not own: create {decided}'s exchanges, queues and bindings"
        f" there, drain the old ones, re-enroll remote proxies, then set migrationAcknowledgedForVersion to {decided}"
        " (docs/platform.md, the messaging runbook)"
    )


def managed_migration_problem(running: str | None, decided: str, cut_over_for: str | None, pinned: bool) -> str | None:
    """Why an upgrade of a platform on a managed broker may not go on yet: the new version
    declares another topology, and the operator's draining migration is not ported, so the run
    cuts over at once; ``forceCutoverForVersion`` naming the new version says the old queues
    are drained (``pinned``: the user set the virtual host, which then stays)."""
    if running is None or running not in BUNDLES or running == decided or cut_over_for == decided:
        return None
    before, after = BUNDLES[running], BUNDLES[decided]
    if before.topology == after.topology and (pinned or before.default_virtual_host == after.default_virtual_host):
        return None
    moved = f"the exchanges {', '.join(before.wiring.exchanges)} to {', '.join(after.wiring.exchanges)}"
    if not pinned and before.default_virtual_host != after.default_virtual_host:
        moved += f" and the virtual host {before.default_virtual_host} to {after.default_virtual_host}"
    return (
        f"the upgrade from {running} to {decided} moves the managed broker's topology ({moved}) at once:"
        " what is left in the old queues is not carried over. Drain them (docs/platform.md, the messaging runbook),"
        f" then set forceCutoverForVersion to {decided}"
    )
