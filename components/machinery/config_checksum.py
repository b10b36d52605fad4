"""The config checksum as the pods get it, from the resolved references: a plain string when
it can be (the pod template then holds no Output for the SDK to await), an Output when an
object comes from a resource of the program, secret whenever a Secret's values went into it."""

from __future__ import annotations

from collections.abc import Mapping

import pulumi

from components.kube.referenced_objects import ResolvedReferences
from components.render.checksum import ReferencedData, config_checksum


def checksum_input(resolved: ResolvedReferences) -> str | pulumi.Output[str]:
    if not resolved.from_resources and not resolved.read_any_secret:
        return config_checksum(resolved.read)
    outputs = [data for _, data in resolved.from_resources]

    def combine(values: list[Mapping[str, str]]) -> str:
        pending = [
            ReferencedData(ref.kind, ref.name, data) for (ref, _), data in zip(resolved.from_resources, values, strict=True)
        ]
        return config_checksum([*resolved.read, *pending])

    checksum = pulumi.Output.all(*outputs).apply(combine) if outputs else pulumi.Output.from_input(combine([]))
    return pulumi.Output.secret(checksum) if resolved.read_any_secret else checksum
