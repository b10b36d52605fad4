"""Teams and fleets: projects whose state is in the PostgreSQL server (the root conftest's
``postgres``) or in a folder."""

from __future__ import annotations

import pytest

from ..support.fleet_project import Project
from ..support.postgres import PostgresServer


@pytest.fixture
def project(tmp_path, postgres: PostgresServer, engine) -> Project:
    """A project whose stacks' state is in the PostgreSQL server."""
    return Project(tmp_path / "project", postgres.backend_url)


@pytest.fixture
def file_project(tmp_path, engine) -> Project:
    """A project whose stacks' state is in a folder (a ``file://`` backend)."""
    (tmp_path / "state").mkdir()
    return Project(tmp_path / "project", f"file://{tmp_path / 'state'}")
