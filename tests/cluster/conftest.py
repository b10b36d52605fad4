from __future__ import annotations

import os
import pathlib
import tempfile
from collections.abc import Iterator

import pytest

from ..engine.conftest import engine, make_stack  # noqa: F401  (the engine fixtures, reused)
from ..multilang.conftest import yaml_engine, yaml_stack  # noqa: F401
from .local_cluster import ClusterUnavailable, LocalCluster, local_cluster


@pytest.fixture(scope="session")
def cluster() -> Iterator[LocalCluster]:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="local-cluster-"))
    try:
        with local_cluster(folder) as running:
            yield running
    except ClusterUnavailable as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"cluster tests cannot be skipped in CI: {error}")
        pytest.skip(str(error))
