"""The Pulumi program: one PlatformComponent per entry of the stack config's ``platforms``
(created first), one ConnectorComponent per entry of its ``connectors``, one ProxyComponent
per entry of its ``proxies``.

``__main__.py`` runs ``connectors_program``; the engine tests run the same function inline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pulumi
from pydantic import ValidationError

from components.app import secret_config, stack_files
from components.app.plain_credentials import warn_of_plain_credentials
from components.app.secret_config import secret_fields
from components.app.stack_config import (
    kubernetes_provider,
    namespaces,
    read_list_config,
    reference_reader,
    stack_settings,
)
from components.app.stack_platforms import platform_to_register_with, with_platform_url
from components.args.base import EntryIdentity
from components.args.connector_spec import ConnectorEntry
from components.args.platform_spec import PlatformEntry
from components.args.problems import InvalidArgumentsError, describe, kind_of
from components.args.proxy_spec import ProxyEntry
from components.connector_component import ConnectorComponent, prepare_connector
from components.kube.object_reader import ReferenceReader, ReferenceReadError
from components.kube.referenced_objects import heading_of
from components.machinery.output_values import camel_case_keys
from components.machinery.workload_component import Prepared
from components.platform_component import PlatformComponent
from components.platform_preparation import PlatformPrepared, prepare_platform
from components.proxy_component import ProxyComponent, prepare_proxy
from components.registration.resource import start_provider_early

Entry = TypeVar("Entry", ConnectorEntry, ProxyEntry, PlatformEntry)
Decided = TypeVar("Decided")


def entry_label(index: int, entry: EntryIdentity, key: str = "connectors") -> str:
    """How messages name an entry: its place in the list and its (validated) name."""
    return f"{key}[{index}] ({entry.name})"


def parse_entries(raw: Any, model: type[Entry], key: str) -> list[Entry]:
    """Every entry validated; one error listing every problem of every entry.

    Only a list is a list: ``{}``, ``""``, ``0`` or ``false`` are mistakes, not "none" (that is
    a missing key or ``[]``)."""
    if not isinstance(raw, list):
        raise InvalidArgumentsError([f"{key}: must be a list of {key} (got {kind_of(raw)})"])
    entries: list[tuple[int, Entry]] = []
    problems: list[str] = []
    for index, item in enumerate(raw):
        try:
            entries.append((index, model.model_validate(item)))
        except ValidationError as error:
            problems += describe(error, f"{key}[{index}]")
    first_of: dict[tuple[str, str], int] = {}
    for index, entry in entries:
        name = (entry.namespace, entry.name)
        if name in first_of:
            problems.append(f"{entry_label(index, entry, key)}: the name is taken in its namespace by {key}[{first_of[name]}]")
        else:
            first_of[name] = index
    if problems:
        raise InvalidArgumentsError(problems)
    return [entry for _, entry in entries]


def parse_connectors(raw: Any) -> list[ConnectorEntry]:
    return parse_entries(raw, ConnectorEntry, "connectors")


def parse_proxies(raw: Any) -> list[ProxyEntry]:
    return parse_entries(raw, ProxyEntry, "proxies")


def one_per_namespace(platforms: list[PlatformEntry]) -> list[PlatformEntry]:
    """The platforms, refused when two share a namespace (the operator's rule: its components' names are fixed)."""
    first_of: dict[str, int] = {}
    problems = []
    for index, platform in enumerate(platforms):
        if platform.namespace in first_of:
            other = first_of[platform.namespace]
            problems.append(
                f"{entry_label(index, platform, 'platforms')}: namespace {platform.namespace} already has a platform, "
                f"{entry_label(other, platforms[other], 'platforms')}: one platform per namespace"
            )
        first_of.setdefault(platform.namespace, index)
    if problems:
        raise InvalidArgumentsError(problems)
    return platforms


def check_names_across_kinds(connectors: list[ConnectorEntry], proxies: list[ProxyEntry]) -> None:
    """A proxy and a connector of one name in one namespace would write the same objects."""
    taken = {(c.namespace, c.name): index for index, c in enumerate(connectors)}
    problems = [
        f"{entry_label(index, p, 'proxies')}: the name is taken in its namespace by connectors[{taken[(p.namespace, p.name)]}]"
        for index, p in enumerate(proxies)
        if (p.namespace, p.name) in taken
    ]
    if problems:
        raise InvalidArgumentsError(problems)


def prepare_all(
    entries: Sequence[Entry],
    args: Sequence[Any],
    prepare: Callable[[Any, Any], Decided],
    given: Callable[[int, str], Any],
    key: str,
) -> list[Decided]:
    """What every entry's component needs decided before anything is created (``prepare``: its
    kind's, given the entry's ``args`` and what the program knows of it, ``given``), decided by the
    component's own function; one error for all that cannot work or cannot be used."""
    prepared, errors = [], []
    for index, (entry, arguments) in enumerate(zip(entries, args, strict=True)):
        label = entry_label(index, entry, key)
        try:
            prepared.append(prepare(arguments, given(index, label)))
        except InvalidArgumentsError as error:
            errors.append(error.about(label))
        except ReferenceReadError as error:
            raise ReferenceReadError(f"{label}: {error}") from None
    if errors:
        raise InvalidArgumentsError([p for error in errors for p in error.problems], heading=heading_of(errors))
    return prepared


def resource_names(entries: Sequence[EntryIdentity]) -> list[str]:
    """Each entry's resource name: its name, or ``<namespace>/<name>`` when an entry before it
    in the list has that name (in another namespace). A stack whose names are unique keeps the
    names it always had; an entry added below one of the same name leaves that one as it is."""
    seen: set[str] = set()
    names = []
    for entry in entries:
        names.append(entry.name if entry.name not in seen else f"{entry.namespace}/{entry.name}")
        seen.add(entry.name)
    return names


def entry_options(
    entry: EntryIdentity, base: pulumi.ResourceOptions, namespace: pulumi.Resource | None
) -> pulumi.ResourceOptions:
    """The component's options: the stack's provider, the entry's protection, its namespace."""
    own = pulumi.ResourceOptions(
        protect=entry.protect or None,
        retain_on_delete=entry.retain_on_delete or None,
        depends_on=[namespace] if namespace is not None else None,
    )
    return pulumi.ResourceOptions.merge(base, own)


def export_outputs(kind: str, entries: Sequence[EntryIdentity], outputs: list[dict[str, Any]]) -> None:
    """One map per kind, keyed by ``<namespace>/<name>`` (nothing can overwrite anything). For
    connectors, also each by its name alone where that is unique and not a map's name, as before
    those maps existed: kept until version 0.3.0 (README, "Stack outputs")."""
    pulumi.export(kind, {f"{e.namespace}/{e.name}": out for e, out in zip(entries, outputs, strict=True)})
    if kind != "connectors":
        return
    counts = Counter(e.name for e in entries)
    for entry, out in zip(entries, outputs, strict=True):
        if counts[entry.name] == 1 and entry.name not in ("connectors", "proxies"):
            pulumi.export(entry.name, out)


def without_registration(entry: ConnectorEntry) -> ConnectorEntry:
    """The entry as ``renderOnly`` renders it: its registration (and the Secret holding its
    credentials, which only a cluster could give) left out."""
    return entry.model_copy(update={"spec": entry.spec.model_copy(update={"registration": None})})


def create_components(
    key: str,
    entries: Sequence[Entry],
    args: Sequence[Any],
    base: pulumi.ResourceOptions,
    namespaces: dict[str, Any],
    build: Callable[..., Any],
) -> list[dict[str, Any]]:
    """A component per entry (``build``: its kind's, called with the entry's index, resource
    name, arguments, options and label); their outputs, as the stack exports them."""
    outputs = []
    for index, (entry, name, given) in enumerate(zip(entries, resource_names(entries), args, strict=True)):
        opts = entry_options(entry, base, namespaces.get(entry.namespace))
        component = build(index, name, given, opts, entry_label(index, entry, key))
        outputs.append(camel_case_keys(component.output_values()))
    return outputs


def require_entries(config: pulumi.Config) -> None:
    """A stack whose settings hold neither list is refused: a missing or misplaced stack file
    (a rename, a wrong checkout) reads as one, and running it would delete every resource of
    the stack. An explicit empty list is how a stack is emptied on purpose."""
    if any(config.get(key) is not None for key in ("connectors", "proxies", "platforms")):
        return
    found = secret_config.running_stack_file()
    where = f"in {found}" if found else f"no {stack_files.file_name(pulumi.get_stack())} was found"
    raise InvalidArgumentsError(
        [
            f"stack {pulumi.get_stack()}: neither connectors:connectors nor connectors:proxies is set ({where}); "
            "nothing was changed. To empty the stack on purpose, set connectors:connectors: []"
        ],
        heading="invalid stack settings",
    )


def create_platforms(
    platforms: Sequence[PlatformEntry],
    args: Sequence[Any],
    prepared: Sequence[PlatformPrepared],
    base: pulumi.ResourceOptions,
    namespaces: dict[str, Any],
) -> list[PlatformComponent]:
    """A component per platform, exported as ``platforms``; the components, for the connectors that wait for one."""
    made: list[PlatformComponent] = []

    def platform(index: int, name: str, given: Any, opts: pulumi.ResourceOptions, label: str) -> PlatformComponent:
        made.append(PlatformComponent(name, given, opts, prepared[index]))
        return made[-1]

    if platforms:
        export_outputs("platforms", platforms, create_components("platforms", platforms, args, base, namespaces, platform))
    return made


def connectors_program(reader: ReferenceReader | None = None) -> None:
    """``reader`` replaces the cluster reads of referenced objects (tests)."""
    config = pulumi.Config()
    require_entries(config)
    settings = stack_settings(config)
    entries = parse_connectors(read_list_config(config, "connectors"))
    proxies = parse_proxies(read_list_config(config, "proxies"))
    platforms = one_per_namespace(parse_entries(read_list_config(config, "platforms"), PlatformEntry, "platforms"))
    check_names_across_kinds(entries, proxies)
    if settings.render_only:
        entries = [without_registration(entry) for entry in entries]
    warn_of_plain_credentials(entries, config)
    reader = reader or reference_reader(settings)
    connector_args, proxy_args = [e.to_args() for e in entries], [p.to_args() for p in proxies]  # validated once
    registers_with = [platform_to_register_with(entry_label(i, entry), entry, platforms) for i, entry in enumerate(entries)]
    connector_args = [
        a if p is None else with_platform_url(a, platforms[p]) for a, p in zip(connector_args, registers_with, strict=True)
    ]
    secret, proxy_secret = secret_fields("connectors", len(entries)), secret_fields("proxies", len(proxies))

    def connector_given(index: int, label: str) -> Prepared:
        return Prepared(
            label=label,
            reference_reader=reader,
            secret_inputs=secret[index],
            kubeconfig=settings.kubeconfig,
            kube_context=settings.context,
        )

    def proxy_given(index: int, label: str) -> Prepared:
        return Prepared(label=label, reference_reader=reader, secret_inputs=proxy_secret[index])

    platform_args = [p.to_args() for p in platforms]
    platform_prepared = prepare_all(
        platforms, platform_args, lambda args, _: prepare_platform(args, reader), lambda i, label: None, "platforms"
    )
    prepared = prepare_all(entries, connector_args, prepare_connector, connector_given, "connectors")
    proxy_prepared = prepare_all(proxies, proxy_args, prepare_proxy, proxy_given, "proxies")
    if any(p.route is not None for p in prepared):
        start_provider_early()
    base = pulumi.ResourceOptions(provider=kubernetes_provider(settings))
    created = namespaces([e.namespace for e in [*platforms, *entries, *proxies]], base) if settings.create_namespaces else {}

    platform_components = create_platforms(platforms, platform_args, platform_prepared, base, created)

    def connector(index: int, name: str, args: Any, opts: pulumi.ResourceOptions, label: str) -> ConnectorComponent:
        waits_for = registers_with[index]
        if waits_for is not None:  # its platform's core ready first
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[platform_components[waits_for]]))
        return ConnectorComponent(name, args, opts, prepared[index])

    def proxy(index: int, name: str, args: Any, opts: pulumi.ResourceOptions, label: str) -> ProxyComponent:
        return ProxyComponent(name, args, opts, proxy_prepared[index])

    export_outputs("connectors", entries, create_components("connectors", entries, connector_args, base, created, connector))
    proxy_outputs = create_components("proxies", proxies, proxy_args, base, created, proxy)
    if proxies:
        export_outputs("proxies", proxies, proxy_outputs)
