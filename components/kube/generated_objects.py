"""Waiting, inside an ``up``, for what an upstream operator generates and the platform reads.

A managed database's credentials Secret and Services exist only once CloudNativePG has acted on
the ``Cluster`` this stack creates, so the first ``up`` cannot read them before it starts. The
component asks for them once the Cluster is created (``Output.apply`` on its id, which runs in
this process, which already reads the cluster) and the workloads that read them wait on that
answer: polled here until they are all there, or until the deadline, when the run fails with a
message naming what is still missing (never a hang, never a value read).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pulumi

from components.kube.object_reader import Reference, ReferenceReader, ReferenceReadError, ServiceReader

__all__ = ["DEADLINE_SECONDS", "Generated", "GeneratedObjectsMissing", "wait_for"]

DEADLINE_SECONDS = 600.0
"""How long an ``up`` waits for an upstream operator's objects (the Kubernetes provider's own
default wait for a workload is ten minutes too)."""
POLL_SECONDS = 2.0


class GeneratedObjectsMissing(pulumi.RunError):
    """The deadline passed and some of the objects are not there (the run fails with this message)."""


@dataclass(frozen=True)
class Generated:
    """What an upstream operator makes that the platform reads."""

    secret: Reference
    services: Sequence[str]
    maker: str
    """Who makes them, for the message: ``CloudNativePG``."""
    source: str
    """What they are made from, for the message: ``Cluster "ilm-db"``."""


def _missing(reader: ReferenceReader, wanted: Generated) -> tuple[Mapping[str, str] | None, list[str]]:
    data = reader.read(wanted.secret)
    missing = [] if data is not None else [wanted.secret.describe()]
    namespace = wanted.secret.namespace
    if isinstance(reader, ServiceReader):
        absent = [s for s in wanted.services if not reader.service_exists(namespace, s)]
        missing += [f'Service "{s}" in namespace "{namespace}"' for s in absent]
    return data, missing


def wait_for(
    reader: ReferenceReader,
    wanted: Generated,
    deadline: float = DEADLINE_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Mapping[str, str]:
    """The Secret's ``data`` once it and the Services are all there; ``GeneratedObjectsMissing``
    naming what is not, once ``deadline`` seconds have passed."""
    start = clock()
    while True:
        try:
            data, missing = _missing(reader, wanted)
        except ReferenceReadError as error:  # a passing failure of the API server: asked again
            data, missing = None, [str(error)]
        if data is not None and not missing:
            return data
        if clock() - start >= deadline:
            raise GeneratedObjectsMissing(
                f"waited {deadline:g} s for what {wanted.maker} makes of {wanted.source}: {', '.join(missing)} not there"
                f" (is {wanted.maker} running, and the {wanted.source.split()[0]} healthy?)"
            )
        sleep(POLL_SECONDS)
