"""The main command on a user's machine: the pulumi CLI on PATH, the user's PULUMI_HOME, login
and plugins (the Kubernetes plugin installed by ``pulumi plugin install`` when missing), nothing
built; with neither a CLI nor Go, one message saying what to install."""

from __future__ import annotations

import contextlib
import http.server
import json
import pathlib
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from typing import Any

from tests.support.main_command_project import MAIN_COMMAND

from ..conftest import ROOT

KUBERNETES = "4.25.0"


def project_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", work)
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", work / "stacks")
    return work


def deploy(env: dict[str, str], work: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [*MAIN_COMMAND, *args, "--stack", "dev", "--work-dir", str(work)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


@contextlib.contextmanager
def plugin_downloads(plugin: pathlib.Path, folder: pathlib.Path) -> Iterator[tuple[str, list[str]]]:
    """A stand-in for the plugin downloads a user's CLI reaches on the internet: the built
    Kubernetes plugin as a release archive, served on 127.0.0.1; yields its URL and the paths
    fetched."""
    folder.mkdir()
    archive = folder / f"pulumi-resource-kubernetes-v{KUBERNETES}-linux-amd64.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as tar:
        tar.add(plugin / "pulumi-resource-kubernetes", arcname="pulumi-resource-kubernetes")
    fetched: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(folder), **kwargs)

        def do_GET(self) -> None:
            fetched.append(self.path)
            super().do_GET()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", fetched
    finally:
        server.shutdown()
        server.server_close()


def test_the_users_cli_is_used_with_the_users_home_and_nothing_is_built(engine, tmp_path):
    cli = tmp_path / "pulumi" / "bin"
    shutil.copytree(engine["TOOLS_BIN"], cli)
    home, cache = tmp_path / "home" / ".pulumi", tmp_path / "empty-cache"
    cache.mkdir()
    env = {
        "PATH": f"{cli}:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "PULUMI_HOME": str(home),
        "CONNECTOR_TOOLS_CACHE": str(cache),
    }
    (tmp_path / "state").mkdir()
    subprocess.run([cli / "pulumi", "login", f"file://{tmp_path / 'state'}"], env=env, check=True, capture_output=True)
    assert shutil.which("go", path=env["PATH"]) is None
    plugin = pathlib.Path(engine["PULUMI_HOME"]) / "plugins" / f"resource-kubernetes-v{KUBERNETES}"

    work = project_copy(tmp_path)
    with plugin_downloads(plugin, tmp_path / "downloads") as (url, fetched):
        downloads = {"PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES": f".*={url}"}
        # the engine would fetch a missing plugin itself: only the main command's install may
        downloads["PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION"] = "true"
        done = deploy({**env, **downloads}, work, "preview")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert fetched == [f"/pulumi-resource-kubernetes-v{KUBERNETES}-linux-amd64.tar.gz"], "pulumi plugin install ran"
    assert list((tmp_path / "state").rglob("dev.json")), "the stack is in the backend of the user's login"
    assert not (work / ".pulumi-state").exists()
    assert f"pulumi CLI: {cli / 'pulumi'}\n" in done.stdout
    assert list(cache.iterdir()) == [], "nothing built"
    assert (home / "plugins" / f"resource-kubernetes-v{KUBERNETES}").is_dir()
    assert not (home / "plugins" / "resource-connectors-v0.1.0").exists()


def test_a_plugin_the_engine_installs_during_the_first_up_is_what_that_up_ran_with(engine, tmp_path):
    """A user's CLI without the Kubernetes plugin, whose ``plugin ls`` is made to list it, so that
    the main command installs nothing: the engine installs it as it first loads the provider,
    during the first ``up``. That ``up`` keeps its fingerprint (the plugin is what it ran with),
    and the second is not run."""
    cli = tmp_path / "pulumi" / "bin"
    shutil.copytree(engine["TOOLS_BIN"], cli)
    (cli / "pulumi").rename(cli / "pulumi-real")
    listed = json.dumps([{"name": "kubernetes", "kind": "resource", "version": KUBERNETES}])
    wrapper = f'#!/bin/sh\n[ "$1 $2" = "plugin ls" ] && {{ echo \'{listed}\'; exit 0; }}\nexec "{cli / "pulumi-real"}" "$@"\n'
    (cli / "pulumi").write_text(wrapper)
    (cli / "pulumi").chmod(0o755)
    home = tmp_path / "home" / ".pulumi"
    env = {"PATH": f"{cli}:/usr/bin:/bin", "HOME": str(tmp_path / "home"), "PULUMI_HOME": str(home)}
    (tmp_path / "state").mkdir()
    env["PULUMI_BACKEND_URL"] = f"file://{tmp_path / 'state'}"
    plugin = pathlib.Path(engine["PULUMI_HOME"]) / "plugins" / f"resource-kubernetes-v{KUBERNETES}"
    work = project_copy(tmp_path)
    with plugin_downloads(plugin, tmp_path / "downloads") as (url, fetched):
        env["PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES"] = f".*={url}"
        first = deploy(env, work, "up")
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        assert fetched == [f"/pulumi-resource-kubernetes-v{KUBERNETES}-linux-amd64.tar.gz"], "the engine installed it"
        second = deploy(env, work, "up")
    assert "its inputs changed while it ran" not in first.stdout
    assert "stack dev: unchanged since its last good up" in second.stdout, second.stdout[-3000:]


def test_without_a_cli_or_go_one_message_says_what_to_install(tmp_path):
    old = tmp_path / "old" / "bin"
    old.mkdir(parents=True)
    (old / "pulumi").write_text("#!/bin/sh\necho v3.100.0\n")
    (old / "pulumi").chmod(0o755)
    for path in ("/usr/bin:/bin", f"{old}:/usr/bin:/bin"):
        env = {"PATH": path, "HOME": str(tmp_path), "CONNECTOR_TOOLS_CACHE": str(tmp_path / "cache")}
        done = deploy(env, project_copy(tmp_path / path.replace("/", "_")), "preview")
        assert done.returncode == 3
        assert "no Pulumi CLI v3.274.0 or newer on PATH, and no Go to build one: install the Pulumi CLI" in done.stderr
        assert "Traceback" not in done.stderr + done.stdout


def test_an_up_shows_the_outputs_once_and_never_reads_them_back(engine, tmp_path):
    """The CLI's display of the ``up`` shows the stack's outputs; the main command neither reads
    them back (two ``pulumi stack output`` runs over the whole state, every stack of a fleet) nor
    prints them a second time. The user's CLI is wrapped to log every command it is given."""
    cli = tmp_path / "pulumi" / "bin"
    shutil.copytree(engine["TOOLS_BIN"], cli)
    (cli / "pulumi").rename(cli / "pulumi-real")
    calls = tmp_path / "calls.log"
    (cli / "pulumi").write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nexec "{cli / "pulumi-real"}" "$@"\n')
    (cli / "pulumi").chmod(0o755)
    env = {"PATH": f"{cli}:/usr/bin:/bin", "HOME": str(tmp_path / "home"), "PULUMI_HOME": engine["PULUMI_HOME"]}
    (tmp_path / "state").mkdir()
    env["PULUMI_BACKEND_URL"] = f"file://{tmp_path / 'state'}"
    done = deploy(env, project_copy(tmp_path), "up")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    commands = calls.read_text().splitlines()
    assert any(" up " in f" {c} " for c in commands), "the wrapped CLI ran the up"
    assert not [c for c in commands if "stack output" in c]
    lines = done.stdout.splitlines()
    assert lines.count("Outputs:") == 1
    assert sum('endpoint      : "http://x509-compliance-provider.default.svc' in line for line in lines) == 2, (
        "in the map and by name (until 0.3.0), each once"
    )
