"""``machinery.children``: the resource of each kind, held to the kinds ``render.objects`` names."""

from __future__ import annotations

import dataclasses

from components.machinery.children import RESOURCES
from components.machinery.workload_component import WorkloadComponent
from components.render.objects import API_TYPES, KINDS, RenderedWorkload


def test_each_kind_is_named_once_and_every_copy_follows_it():
    """The kinds are written in ``render.objects``' Literals; the tables and classes that name
    each kind again (for their types) name exactly those, in creation order where order counts."""
    assert tuple(RESOURCES) == KINDS
    assert tuple(API_TYPES) == KINDS
    rendered = {f.name for f in dataclasses.fields(RenderedWorkload)} - {"endpoint", "current_image"}
    assert rendered == set(KINDS)
    hints = WorkloadComponent.__annotations__  # as written (the SDK reads them so)
    children = {name for name, hint in hints.items() if "CustomResource" in str(hint)}
    assert children == set(KINDS)
