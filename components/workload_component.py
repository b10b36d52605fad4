"""The step both workload components share: their arguments validated and their references
resolved before anything is created (every problem named with the component's label), then
the rendered objects created as children, with the outputs both kinds have.

Each component passes its own parts (its model, renderer, optional kinds, references); the
shared step asks nothing of the kind."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pulumi

from .args.problems import InvalidArgumentsError
from .args.workloads import WorkloadArgs
from .children import create_children, retains
from .config_checksum import checksum_input
from .outputs import NOT_RENDERED, from_rendered, render_when_known, secret_if
from .references import ResolvedReferences
from .render.objects import ObjectKind, OptionalKind, RenderedWorkload


@contextmanager
def labelled(label: str) -> Iterator[None]:
    """Argument problems raised inside, each prefixed by ``label`` (``connectors[3] (name)``)."""
    try:
        yield
    except InvalidArgumentsError as error:
        raise error.about(label) from None


@dataclass(frozen=True)
class Parts:
    """What a workload kind renders, and how."""

    render: Callable[[Any], RenderedWorkload]
    """The kind's renderer: its arguments to its objects."""
    optional_kinds: tuple[OptionalKind, ...]
    not_rendered: frozenset[str] = frozenset()
    """Arguments no object is rendered from (a registration, whose Outputs must not delay them)."""


@dataclass(frozen=True)
class Built:
    resources: dict[ObjectKind, pulumi.CustomResource]
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload]


class WorkloadComponent(pulumi.ComponentResource):
    """A workload's objects as children of one component (see the module)."""

    current_image: pulumi.Output[str]
    config_checksum: pulumi.Output[str]
    children: dict[str, str]

    def build(
        self,
        name: str,
        args: WorkloadArgs,
        parts: Parts,
        references: ResolvedReferences,
        secret_inputs: Collection[str],
        opts: pulumi.ResourceOptions | None,
    ) -> Built:
        """The children, and the outputs every workload has. ``secret_inputs``: arguments that
        held a secret, so the objects rendered from them are secret in state."""
        secret = bool(set(secret_inputs) - NOT_RENDERED)
        rendered = secret_if(render_when_known(args, parts.render, exclude=set(parts.not_rendered)), secret)
        checksum = checksum_input(references)
        resources = create_children(
            self, name, rendered, checksum, parts.optional_kinds, retains(opts), args.rollout_timeout_seconds
        )
        self.current_image = pulumi.Output.from_input(from_rendered(rendered, lambda r: r.current_image))
        self.config_checksum = pulumi.Output.from_input(checksum)
        self.children = {kind: name for kind in resources}
        return Built(resources, rendered)

    def output_values(self) -> dict[str, Any]:
        """The component's outputs by their Python names."""
        return {"current_image": self.current_image, "config_checksum": self.config_checksum, "children": self.children}
