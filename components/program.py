"""The Pulumi program: one ConnectorComponent per entry of the stack config's ``connectors``.

``__main__.py`` runs ``connectors_program``; the engine tests run the same function inline.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from .args import ConnectorEntry
from .component import ConnectorComponent
from .errors import InvalidArgumentsError, describe
from .references import ClusterReader, NoCluster, ReferenceReader, ResolvedReferences, resolve_references


def parse_connectors(raw: Any) -> list[ConnectorEntry]:
    """Every entry validated; one error listing every problem of every entry."""
    if not isinstance(raw, list):
        raise InvalidArgumentsError(["connectors: must be a list of connectors"])
    entries, problems = [], []
    for index, item in enumerate(raw):
        try:
            entries.append(ConnectorEntry.model_validate(item))
        except ValidationError as error:
            problems += describe(error, f"connectors[{index}]")
    names = [(e.namespace, e.name) for e in entries]
    for ns, name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(f"connectors: {name!r} appears more than once in namespace {ns!r}")
    if problems:
        raise InvalidArgumentsError(problems)
    return entries


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
    for entry in entries:
        try:
            resolved.append(resolve_references(entry.to_args(), reader))
        except InvalidArgumentsError as error:
            problems += error.problems
    if problems:
        raise InvalidArgumentsError(problems, heading="referenced objects not found")
    return resolved


def connectors_program(reader: ReferenceReader | NoCluster | None = None) -> None:
    """``reader`` replaces the cluster reads of referenced objects (tests)."""
    config = pulumi.Config()
    entries = parse_connectors(config.get_object("connectors") or [])
    references = resolve_all(entries, reader or reference_reader(config))
    provider = kubernetes_provider(config)
    opts = pulumi.ResourceOptions(provider=provider) if provider is not None else None
    for entry, refs in zip(entries, references, strict=True):
        connector = ConnectorComponent(
            entry.name,
            entry.to_args(),
            opts,
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
