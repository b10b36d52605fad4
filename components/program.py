"""The Pulumi program: one ConnectorComponent per entry of the stack config's ``connectors``.

``__main__.py`` runs ``connectors_program``; the engine tests run the same function inline.
"""

from __future__ import annotations

import json
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from .args import ConnectorEntry
from .component import ConnectorComponent, registration_route
from .errors import InvalidArgumentsError, describe, kind_of
from .references import (
    ClusterReader,
    NoCluster,
    ReferenceReader,
    ReferenceReadError,
    ResolvedReferences,
    resolve_references,
)


def entry_label(index: int, entry: ConnectorEntry) -> str:
    """How messages name an entry: its place in the list and its (validated) name."""
    return f"connectors[{index}] ({entry.name})"


def read_connectors_config(config: pulumi.Config) -> Any:
    """The ``connectors`` value as written: a missing key is no connectors; anything else is
    parsed as the JSON Pulumi stores it in, or kept as the plain string it is."""
    text = config.get("connectors")
    if text is None:
        return []
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidArgumentsError(["connectors: nested too deeply to be a list of connectors"]) from None
    except ValueError:
        return text


def parse_connectors(raw: Any) -> list[ConnectorEntry]:
    """Every entry validated; one error listing every problem of every entry.

    Only a list is a list of connectors: ``{}``, ``""``, ``0`` or ``false`` are mistakes, not
    "no connectors" (that is a missing key or ``[]``)."""
    if not isinstance(raw, list):
        raise InvalidArgumentsError([f"connectors: must be a list of connectors (got {kind_of(raw)})"])
    entries: list[tuple[int, ConnectorEntry]] = []
    problems: list[str] = []
    for index, item in enumerate(raw):
        try:
            entries.append((index, ConnectorEntry.model_validate(item)))
        except ValidationError as error:
            problems += describe(error, f"connectors[{index}]")
    first_of: dict[tuple[str, str], int] = {}
    for index, entry in entries:
        key = (entry.namespace, entry.name)
        if key in first_of:
            problems.append(f"{entry_label(index, entry)}: the name is taken in its namespace by connectors[{first_of[key]}]")
        else:
            first_of[key] = index
    if problems:
        raise InvalidArgumentsError(problems)
    return [entry for _, entry in entries]


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
        except ReferenceReadError as error:
            raise ReferenceReadError(f"{entry_label(index, entry)}: {error}") from None
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


def resolve_all(entries: list[ConnectorEntry], reader: ReferenceReader | NoCluster) -> list[ResolvedReferences]:
    """Every connector's referenced objects, before any resource exists; one error for all missing."""
    resolved, problems = [], []
    for index, entry in enumerate(entries):
        try:
            resolved.append(resolve_references(entry.to_args(), reader))
        except InvalidArgumentsError as error:
            problems += error.about(entry_label(index, entry)).problems
        except ReferenceReadError as error:
            raise ReferenceReadError(f"{entry_label(index, entry)}: {error}") from None
    if problems:
        raise InvalidArgumentsError(problems, heading="referenced objects not found")
    return resolved


def connectors_program(reader: ReferenceReader | NoCluster | None = None) -> None:
    """``reader`` replaces the cluster reads of referenced objects (tests)."""
    config = pulumi.Config()
    entries = parse_connectors(read_connectors_config(config))
    check_routes(entries, config)
    references = resolve_all(entries, reader or reference_reader(config))
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


def camel_case_keys(value: Any) -> Any:
    """Stack outputs use the Connector resource's camelCase, like the stack config."""
    if isinstance(value, dict):
        return {to_camel(key): camel_case_keys(item) for key, item in value.items()}
    return value
