"""The reference operator's rendering of its `full` sample, as the tests compare with it."""

from __future__ import annotations

from typing import Any

import yaml

from components.render.checksum import EMPTY_CHECKSUM

from ..conftest import DATA


def operator_objects(namespace: str = "ilm-system", checksum: str = EMPTY_CHECKSUM) -> dict[str, dict[str, Any]]:
    """The reference operator's rendering of its `full` sample (tests/data), by kind."""
    text = (DATA / "operator-full-objects.yaml").read_text().replace("NAMESPACE", namespace).replace("CHECKSUM", checksum)
    return {o["kind"]: o for o in yaml.safe_load_all(text)}
