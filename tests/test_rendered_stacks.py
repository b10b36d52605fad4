"""Every sample stack registers exactly what it registered when its golden file was written
(``tests/data/rendered-stacks/``): types, names, inputs and which of them are secret. A change
of layout changes none of it; a deliberate change rewrites the files (``tests/rendered_stacks.py``)."""

from __future__ import annotations

import pytest

from .rendered_stacks import STACKS, golden, recorded


@pytest.mark.parametrize("stack", STACKS)
def test_a_sample_stack_registers_what_its_golden_file_holds(stack):
    assert recorded(stack) == golden(stack)


def test_every_sample_stack_has_a_golden_file():
    assert len(STACKS) >= 8
    for stack in STACKS:
        assert golden(stack), stack
