"""Teams and fleets: state in a real PostgreSQL server shared by concurrent runs."""

from __future__ import annotations

import pathlib
import shutil
import tempfile
from collections.abc import Iterator

import pytest

from ..conftest import unavailable
from .postgres import PostgresServer, PostgresUnavailable, postgres_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pulumi-state-pg-"))
    try:
        with postgres_server(folder) as server:
            yield server
    except PostgresUnavailable as error:
        unavailable("PostgreSQL tests", error)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
