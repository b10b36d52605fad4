"""Bad input for the fuzz tests: every place in a value, a value planted at one, a canary no
message may repeat, and junk of any type, size and depth."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st

Path = tuple[str | int, ...]


def paths_of(value: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every place in ``value``: each map entry and list item, containers and leaves alike."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from paths_of(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from paths_of(item, (*prefix, index))


def planted(value: Any, path: Path, new: Any) -> Any:
    changed = copy.deepcopy(value)
    holder = changed
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = new
    return changed


def nested(depth: int) -> Any:
    value: Any = {"leaf": "x"}
    for _ in range(depth):
        value = {"a": [value]}
    return value


# A canary in every value of a sample: no message, log line or warning repeats it.
CANARY_TEXT = "SECRET-CANARY-31337"
CANARY_NUMBER = 86753090999


def canary_variants(value: dict[str, Any]) -> Iterator[tuple[Path, Any]]:
    for path in paths_of(value):
        yield path, CANARY_TEXT
        yield path, CANARY_NUMBER
        yield path, [CANARY_TEXT]
        yield path, {"value": CANARY_TEXT}


# Property-based: junk of any type, size and depth, to plant anywhere in a rich sample.
junk = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(["", "0%", "00%", "-1", "http://[::1", "sha256:", "/", "Equal", "RollingUpdate", "volume", "env"]),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3),
    max_leaves=12,
) | st.integers(min_value=40, max_value=400).map(nested)
