"""The Pulumi program: one ConnectorComponent per entry of the stack config's ``connectors``,
one ProxyComponent per entry of its ``proxies``.

``__main__.py`` runs ``connectors_program``; the engine tests run the same function inline.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

from .args.connector import ConnectorEntry
from .args.errors import InvalidArgumentsError, describe, kind_of
from .args.kinds import WorkloadEntry
from .args.proxy import ProxyEntry
from .component import ConnectorComponent
from .connector_registration import registration_route
from .outputs import camel_case_keys
from .plain_credentials import warn_of_plain_credentials
from .proxy_component import ProxyComponent
from .references import (
    ClusterReader,
    NoCluster,
    ReferenceReader,
    ReferenceReadError,
    ResolvedReferences,
    resolve_references,
)
from .registration.resource import start_provider_early

Entry = TypeVar("Entry", ConnectorEntry, ProxyEntry)


def entry_label(index: int, entry: WorkloadEntry, key: str = "connectors") -> str:
    """How messages name an entry: its place in the list and its (validated) name."""
    return f"{key}[{index}] ({entry.name})"


def read_list_config(config: pulumi.Config, key: str) -> Any:
    """A list setting as written: a missing key is an empty list; anything else is parsed as
    the JSON Pulumi stores it in, or kept as the plain string it is."""
    text = config.get(key)
    if text is None:
        return []
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidArgumentsError([f"{key}: nested too deeply to be a list"]) from None
    except ValueError:
        return text


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


def check_routes(entries: list[ConnectorEntry], config: pulumi.Config) -> None:
    """Every registration's route decided before anything is created; one error for all that cannot work."""
    problems: list[str] = []
    for index, entry in enumerate(entries):
        if entry.spec.registration is None:
            continue
        try:
            registration_route(entry.spec.registration, config.get("kubeconfig"), config.get("context"))
        except InvalidArgumentsError as error:
            problems += error.about(entry_label(index, entry)).problems
    if problems:
        raise InvalidArgumentsError(problems, heading="registration cannot work")


def kubernetes_provider(config: pulumi.Config) -> k8s.Provider | None:
    """Render-to-directory when ``renderDirectory`` is set; else the configured or ambient cluster."""
    render_directory = config.get("renderDirectory")
    if render_directory:
        return k8s.Provider("render", render_yaml_to_directory=render_directory)
    kubeconfig, context = config.get("kubeconfig"), config.get("context")
    if kubeconfig or context:
        return k8s.Provider("cluster", kubeconfig=kubeconfig, context=context)
    return None


def reference_reader(config: pulumi.Config) -> ReferenceReader | NoCluster:
    if config.get("renderDirectory"):
        return NoCluster()
    return ClusterReader(config.get("kubeconfig"), config.get("context"))


def resolve_all(
    entries: Sequence[WorkloadEntry], reader: ReferenceReader | NoCluster, key: str = "connectors"
) -> list[ResolvedReferences]:
    """Every entry's referenced objects, before any resource exists; one error for all missing."""
    resolved, problems = [], []
    for index, entry in enumerate(entries):
        try:
            resolved.append(resolve_references(entry.to_args(), reader))
        except InvalidArgumentsError as error:
            problems += error.about(entry_label(index, entry, key)).problems
        except ReferenceReadError as error:
            raise ReferenceReadError(f"{entry_label(index, entry, key)}: {error}") from None
    if problems:
        raise InvalidArgumentsError(problems, heading="referenced objects not found")
    return resolved


def connectors_program(reader: ReferenceReader | NoCluster | None = None) -> None:
    """``reader`` replaces the cluster reads of referenced objects (tests)."""
    config = pulumi.Config()
    entries = parse_connectors(read_list_config(config, "connectors"))
    proxies = parse_proxies(read_list_config(config, "proxies"))
    check_names_across_kinds(entries, proxies)
    check_routes(entries, config)
    warn_of_plain_credentials(entries, config)
    reader = reader or reference_reader(config)
    references = resolve_all(entries, reader)
    proxy_references = resolve_all(proxies, reader, "proxies")
    if any(entry.spec.registration is not None for entry in entries):
        start_provider_early()
    provider = kubernetes_provider(config)
    opts = pulumi.ResourceOptions(provider=provider) if provider is not None else None
    for index, (entry, refs) in enumerate(zip(entries, references, strict=True)):
        connector = ConnectorComponent(
            entry.name,
            entry.to_args(),
            opts,
            label=entry_label(index, entry),
            references=refs,
            kubeconfig=config.get("kubeconfig"),
            kube_context=config.get("context"),
        )
        pulumi.export(entry.name, camel_case_keys(connector.output_values()))
    proxy_outputs = {}
    for index, (proxy_entry, refs) in enumerate(zip(proxies, proxy_references, strict=True)):
        proxy = ProxyComponent(
            proxy_entry.name,
            proxy_entry.to_args(),
            opts,
            label=entry_label(index, proxy_entry, "proxies"),
            references=refs,
        )
        proxy_outputs[proxy_entry.name] = camel_case_keys(proxy.output_values())
    if proxies:
        pulumi.export("proxies", proxy_outputs)
