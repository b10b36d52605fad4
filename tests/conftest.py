from __future__ import annotations

import pathlib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .support import engine_stacks, yaml_stacks
from .support.engine_stacks import EngineStack
from .support.platform_double import PlatformDouble, platform_double
from .support.postgres import PostgresServer, PostgresUnavailable, postgres_server
from .support.samples import kubeconfig_text
from .support.skipping import ROOT, unavailable
from .support.yaml_stacks import YamlStack

__all__ = ["ROOT", "unavailable"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "xdist_group(name): run with the tests of the same group (pytest-xdist)")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Which tests one process runs together when the suite is spread (``-n N --dist loadgroup``,
    as ``make test``): a file's tests, and the cluster tier's as one group, for its tests share one
    control plane and the host's pod address range (``support/netns``). Unspread, no effect.
    First of the hook's implementations: xdist reads the marks in its own, to name the groups."""
    for item in items:
        where = pathlib.Path(str(item.path)).relative_to(ROOT)
        group = "cluster" if where.parts[:2] == ("tests", "cluster") else str(where)
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def double() -> Iterator[PlatformDouble]:
    """The platform stand-in on 127.0.0.1; every request it saw kept to the Core's OpenAPI file."""
    with platform_double() as running:
        yield running
    assert running.violations == []


@pytest.fixture
def said(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """What code says through ``pulumi.log``, as its text: under mocks the engine's log is Python's
    logging (without an engine, ``pulumi.log`` would print to stderr instead)."""
    import pulumi

    from .support.mocks import RecordingMocks

    pulumi.runtime.set_mocks(RecordingMocks(), project="connectors", stack="test", preview=True)
    caplog.set_level("INFO")
    return caplog


@pytest.fixture
def minimal() -> dict[str, Any]:
    return {"name": "demo", "namespace": "ilm", "image": {"repository": "r.example/demo", "tag": "1.0"}}


@pytest.fixture
def ambient_kubeconfig(tmp_path, monkeypatch) -> pathlib.Path:
    """A kubeconfig as KUBECONFIG, for programs whose registration needs cluster credentials."""
    path = tmp_path / "kubeconfig"
    path.write_text(kubeconfig_text("https://127.0.0.1:6443"))
    monkeypatch.setenv("KUBECONFIG", str(path))
    return path


@pytest.fixture(scope="session")
def engine() -> dict[str, str]:
    """The environment of the engine tests' stacks (``engine_stacks``)."""
    return engine_stacks.engine_environment()


@pytest.fixture
def make_stack(engine: dict[str, str], tmp_path: pathlib.Path) -> Iterator[Callable[..., EngineStack]]:
    yield from engine_stacks.stack_maker(engine, tmp_path)


@pytest.fixture(scope="session")
def yaml_engine(engine: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every YAML program: a user's install (``yaml_stacks``)."""
    return yaml_stacks.yaml_environment(engine, tmp_path_factory)


@pytest.fixture
def yaml_stack(
    yaml_engine: dict[str, str], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., YamlStack]]:
    yield from yaml_stacks.yaml_stack_maker(yaml_engine, tmp_path, monkeypatch)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A real PostgreSQL server on 127.0.0.1 for the whole session (state backend, journal)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="pulumi-state-pg-"))
    try:
        with postgres_server(folder) as server:
            yield server
    except PostgresUnavailable as error:
        unavailable("PostgreSQL tests", error)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
