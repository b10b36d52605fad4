"""The node tier: a local control plane and one real node, started once for this folder's tests
and stopped after them (before other tiers run on, so that none sees the node's host rules)."""

from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from ..support.local_cluster import ClusterUnavailable, local_cluster
from ..support.real_node import RealNode, real_node
from ..support.skipping import unavailable


@pytest.fixture(scope="package")
def node() -> Iterator[RealNode]:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="real-node-"))
    try:
        with local_cluster(folder / "control-plane", kwok=False) as cluster, real_node(cluster, folder / "node") as running:
            yield running
    except ClusterUnavailable as error:
        unavailable("node tests", error)
    finally:
        if os.environ.get("KEEP_CLUSTER_LOGS") is None:
            shutil.rmtree(folder, ignore_errors=True)
