"""Plain values or ``pulumi.Output``s: rendering when arguments are known, picking from what was
rendered, marking secrets, and the components' outputs under their camelCase names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi
from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from components.render.objects import RenderedWorkload

__all__ = ["camel_case_keys"]

Args = TypeVar("Args", bound=BaseModel)
T = TypeVar("T")

NOT_RENDERED = {"registration", "kubeconfig", "kube_context"}
"""Inputs of a component that no rendered object is made from."""


def has_outputs(value: Any) -> bool:
    if isinstance(value, pulumi.Output):
        return True
    if isinstance(value, Mapping):
        return any(has_outputs(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_outputs(v) for v in value)
    return False


def render_when_known(
    args: Args, render: Callable[[Args], RenderedWorkload], exclude: set[str] | None = None
) -> RenderedWorkload | pulumi.Output[RenderedWorkload]:
    """Plain arguments render now, to plain objects; arguments holding Outputs (an image tag
    from another resource) render once every value is known. ``exclude``: fields the render
    does not read (a registration, whose Outputs must not delay the objects)."""
    dumped = args.model_dump(exclude=exclude)
    if not has_outputs(dumped):
        return render(args)
    return pulumi.Output.from_input(dumped).apply(lambda values: render(type(args).model_validate(values)))


def from_rendered(
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload], pick: Callable[[RenderedWorkload], T]
) -> T | pulumi.Output[T]:
    """``pick`` of the rendered objects: at once when they are plain (no apply for the SDK to
    await), an Output of it when they are an Output."""
    return pick(rendered) if isinstance(rendered, RenderedWorkload) else rendered.apply(pick)


def secret_if(value: Any, secret: bool) -> Any:
    """``value`` as a secret Output when ``secret``."""
    return pulumi.Output.secret(value) if secret and value is not None else value


def camel_case_keys(value: Any) -> Any:
    """Stack outputs (and the package's component state) use the resources' camelCase, like the stack config."""
    if isinstance(value, dict):
        return {to_camel(key): camel_case_keys(item) for key, item in value.items()}
    return value
