from __future__ import annotations

import pathlib
import tempfile
from collections.abc import Iterator

import pytest

from ..conftest import unavailable
from ..support.local_cluster import ClusterUnavailable, LocalCluster, local_cluster


@pytest.fixture(scope="session")
def cluster() -> Iterator[LocalCluster]:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="local-cluster-"))
    try:
        with local_cluster(folder) as running:
            yield running
    except ClusterUnavailable as error:
        unavailable("cluster tests", error)
