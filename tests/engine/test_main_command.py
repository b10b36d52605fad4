"""The main command as a team uses it day one (``python -m components.app.command`` in a project folder of its
own): ``render`` like ``helm template``, ``status`` like ``kubectl get connector``, protection
and retention per entry, config set by path with the real CLI, and a SIGTERM mid-run."""

from __future__ import annotations

import os
import pathlib
import shutil
import signal
import subprocess
import threading
import time
from typing import Any

import yaml

from components.app.command.interrupts import descendants
from tests.support.main_command_project import MAIN_COMMAND
from tests.support.samples import readme_block

from ..conftest import ROOT
from ..support.platform_double import ADMIN_TOKEN, platform_double

DEPLOY = MAIN_COMMAND


def project(tmp_path: pathlib.Path, stack: str, config: dict[str, Any] | None = None) -> pathlib.Path:
    """A project folder with one stack file: a copy of ``stacks/`` one, or ``config``."""
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Pulumi.yaml", work)
    target = work / "stacks" / f"Pulumi.{stack}.yaml"
    if config is None:
        shutil.copy(ROOT / "stacks" / f"Pulumi.{stack}.yaml", target)
    else:
        target.write_text(yaml.safe_dump({"config": config}, sort_keys=False))
    return work


def user_env() -> dict[str, str]:
    """This environment without a backend or passphrase: the main command chooses them."""
    return {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}


def deploy(work: pathlib.Path, *args: str, stack: str = "dev", check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*DEPLOY, *args, "--stack", stack, "--work-dir", str(work)], env=user_env(), capture_output=True, text=True
    )
    if check:
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done


def files(folder: pathlib.Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.yaml"))}


def connector(name: str, platform_url: str | None = None, **entry: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"image": {"repository": "r.example/x509", "tag": "1.0.0"}}
    if platform_url:
        spec["registration"] = {"platformUrl": platform_url, "name": name.upper(), "authType": "none", "deadlineSeconds": 30}
    return {"name": name, "namespace": "ilm", **entry, "spec": spec}


def test_render_writes_render_modes_files_and_touches_no_state(tmp_path):
    work = project(tmp_path, "dev")
    deploy(work, "render", "--out", str(tmp_path / "out"))
    assert not (work / ".pulumi-state" / ".pulumi" / "stacks").exists(), "render keeps no state of the stack"
    deploy(work, "up")
    assert files(tmp_path / "out") == files(work / "rendered") != {}


def test_render_of_a_registering_stack_registers_nothing(tmp_path):
    work = project(tmp_path, "with-registration")
    deploy(work, "render", "--out", str(tmp_path / "out"), stack="with-registration")
    kinds = {yaml.safe_load(text)["kind"] for text in files(tmp_path / "out").values()}
    assert {"Deployment", "Service", "ServiceAccount"} <= kinds


def test_status_shows_each_connector_and_changes_nothing(tmp_path):
    with platform_double() as double:
        admin = {"adminCredentials": {"bearerToken": ADMIN_TOKEN}}
        entries = [connector("x509", double.url), connector("tsa", double.url)]
        entries[1]["spec"]["registration"].update(admin)
        work = project(tmp_path, "s", {"connectors:renderDirectory": "rendered", "connectors:connectors": entries})
        deploy(work, "up", stack="s")
        (state,) = (work / ".pulumi-state").rglob("s.json")
        before = state.read_bytes()
        table = deploy(work, "status", stack="s").stdout.splitlines()
        calls = list(double.calls)
    assert state.read_bytes() == before
    header = next(i for i, line in enumerate(table) if line.startswith("KIND"))
    rows = {line.split()[1]: line.split() for line in table[header + 1 :] if line.strip()}
    uuids = {r.name: uuid for uuid, r in double.records.items()}
    assert table[header].split() == ["KIND", "NAME", "NAMESPACE", "IMAGE", "READY", "HEALTH", "UUID", "STATUS", "PLATFORM"]
    assert rows["x509"] == [
        "connector",
        "x509",
        "ilm",
        "r.example/x509:1.0.0",
        "-",
        "-",
        uuids["X509"],
        "waitingForApproval",
        "-",
    ]
    assert rows["tsa"][6:] == [uuids["TSA"], "waitingForApproval", "waitingForApproval"]
    assert calls[-1][0] == "GET" and all(method in ("GET", "POST") for method, _ in calls)


def test_protect_stops_a_destroy_and_retain_on_delete_keeps_the_objects(tmp_path):
    entries = [connector("kept", retainOnDelete=True), connector("guarded", protect=True), connector("plain")]
    config = {"connectors:renderDirectory": "rendered", "connectors:connectors": entries}
    work = project(tmp_path, "p", config)
    deploy(work, "up", stack="p")
    refused = deploy(work, "destroy", stack="p", check=False)
    assert refused.returncode != 0 and "protect" in refused.stdout + refused.stderr
    assert any("guarded" in name for name in files(work / "rendered"))
    entries[1]["protect"] = False
    project(tmp_path, "p", config)
    deploy(work, "up", stack="p")
    deploy(work, "destroy", stack="p")
    left = files(work / "rendered")
    assert left and all("-kept" in name for name in left), sorted(left)


def pulumi_cli(work: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    from components.app.automation.pulumi_cli import tools_bin
    from components.app.automation.workspace import engine_env

    env = {**os.environ, **engine_env(tools_bin(), "local-dev-only"), "PULUMI_BACKEND_URL": f"file://{work / '.pulumi-state'}"}
    return subprocess.run(["pulumi", *args], cwd=work, env=env, capture_output=True, text=True)


def test_config_set_by_path_with_the_real_cli(tmp_path):
    """The README's edits, run as written with a pulumi on PATH: one connector's tag, one env
    value as a secret, a new string that looks like a number; and without ``--type string``
    such a value is stored as a number, and the error says how to give a string."""
    from components.app.automation.pulumi_cli import tools_bin

    work = project(tmp_path, "dev")
    deploy(work, "preview")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    env |= {
        "PATH": f"{tools_bin()}:/usr/bin:/bin",
        "PULUMI_HOME": str(tools_bin().parent / "pulumi-home"),
        "VALUE": "env-secret-CANARY",
    }
    done = subprocess.run(["bash", "-e", "-c", readme_block("config-edits")], cwd=work, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    deploy(work, "up")
    (deployment,) = [t for n, t in files(work / "rendered").items() if "deployment" in n]
    container = yaml.safe_load(deployment)["spec"]["template"]["spec"]["containers"][0]
    assert container["image"].endswith(":1.3.2")
    assert {"name": "GRPC_PORT", "value": "9090"} in container["env"]
    assert {"name": "LOG_LEVEL", "value": "env-secret-CANARY"} in container["env"], "render mode writes the value"
    assert "secure:" in (work / "stacks" / "Pulumi.dev.yaml").read_text()
    (state,) = (work / ".pulumi-state").rglob("dev.json")
    assert "env-secret-CANARY" not in state.read_text(), "the secret env value is ciphertext in state"
    for args in (["connectors[0].spec.env[3].name", "HTTP_PORT"], ["connectors[0].spec.env[3].value", "8080"]):
        assert pulumi_cli(work, "config", "set", "--path", *args, "--stack", "dev").returncode == 0
    failed = deploy(work, "preview", check=False)
    assert failed.returncode != 0
    assert (
        "connectors[0].spec.env[3].value: Input should be a valid string (got an integer); quote it in YAML, or from the "
        "CLI: pulumi config set --path --type string 'connectors[0].spec.env[3].value' <value>"
    ) in failed.stdout


def sigterm_while_registering(process: subprocess.Popen[str], double: Any, calls: int, timeout: float) -> tuple[str, list[int]]:
    """Once the platform holds ``calls`` registrations at its gate, SIGTERM to ``process``: its
    output, and the processes it had running then. The gate opens and the process is killed
    whatever happens."""
    try:
        deadline = time.monotonic() + timeout
        while len(double.calls) < calls and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert len(double.calls) >= calls, "the registrations were never sent"
        running = descendants(process.pid)
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=timeout)
    finally:
        double.register_gate.set()
        if process.poll() is None:
            process.kill()
    return output, running


def test_a_sigterm_cancels_the_engine_gracefully_and_leaves_no_process(tmp_path):
    with platform_double() as double:
        double.register_gate = threading.Event()
        entries = [connector("x509", double.url)]
        work = project(tmp_path, "t", {"connectors:renderDirectory": "rendered", "connectors:connectors": entries})
        env = user_env()
        run = subprocess.Popen(
            [*DEPLOY, "up", "--stack", "t", "--work-dir", str(work)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        output, running = sigterm_while_registering(run, double, calls=1, timeout=120)
        assert running
    assert run.returncode == 128 + signal.SIGTERM, output[-3000:]
    assert "interrupted: cancelling the engine" in output
    left = still_running(running)
    assert left == [], left
    locks = work / ".pulumi-state" / ".pulumi" / "locks"
    assert locks.is_dir() and not any(p.is_file() for p in locks.rglob("*")), "the engine released its lock"
    urns = deploy(work, "urns", stack="t").stdout
    assert "kubernetes:apps/v1:Deployment::x509" in urns, "the state keeps what was done"


def still_running(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are neither gone nor zombies."""
    return [pid for pid in pids if _state(pid) != "Z"]


def _state(pid: int) -> str:
    try:
        text = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "Z"
    return text[text.rindex(")") + 2 :].split()[0]


def test_a_sigterm_to_the_fleet_reaches_every_running_stack(tmp_path):
    with platform_double() as double:
        double.register_gate = threading.Event()
        work = project(
            tmp_path, "t-1", {"connectors:renderDirectory": "r1", "connectors:connectors": [connector("a", double.url)]}
        )
        project(tmp_path, "t-2", {"connectors:renderDirectory": "r2", "connectors:connectors": [connector("b", double.url)]})
        env = user_env()
        command = [*DEPLOY, "up", "--stacks", "t-*", "--parallel", "2", "--work-dir", str(work)]
        fleet = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        output, running = sigterm_while_registering(fleet, double, calls=2, timeout=180)
        assert len(double.calls) == 2, "both stacks were registering"
    assert fleet.returncode != 0
    assert output.count("failed") >= 2, output[-3000:]
    assert still_running(running) == []


def test_a_fleet_killed_outright_cancels_every_running_stack(tmp_path):
    """SIGKILL to the fleet's own process alone (an out-of-memory kill): its stack workers, in
    sessions of their own, are told (SIGTERM) and cancel their engines as after a SIGTERM to
    the fleet, instead of registering on unseen beside the next run."""
    with platform_double() as double:
        double.register_gate = threading.Event()
        work = project(
            tmp_path, "t-1", {"connectors:renderDirectory": "r1", "connectors:connectors": [connector("a", double.url)]}
        )
        project(tmp_path, "t-2", {"connectors:renderDirectory": "r2", "connectors:connectors": [connector("b", double.url)]})
        (tmp_path / "tmp").mkdir()
        env = {**user_env(), "TMPDIR": str(tmp_path / "tmp")}  # where the fleet keeps its stacks' logs
        command = [*DEPLOY, "up", "--stacks", "t-*", "--parallel", "2", "--work-dir", str(work)]
        fleet = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 180
            while len(double.calls) < 2 and time.monotonic() < deadline and fleet.poll() is None:
                time.sleep(0.2)
            assert len(double.calls) == 2, "both stacks were registering"
            running = descendants(fleet.pid)
            (logs,) = (tmp_path / "tmp").glob("fleet-*")
            fleet.kill()
            fleet.wait()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(
                "interrupted" in (logs / f"{s}.log").read_text() for s in ("t-1", "t-2")
            ):
                time.sleep(0.2)
        finally:
            double.register_gate.set()
        for stack in ("t-1", "t-2"):
            said = (logs / f"{stack}.log").read_text()
            assert said.count("interrupted: cancelling the engine") == 1, stack
            assert "closed file" not in said and "Traceback" not in said, stack
        deadline = time.monotonic() + 90
        while still_running(running) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert still_running(running) == []
        locks = work / ".pulumi-state" / ".pulumi" / "locks"
        assert not any(p.is_file() for p in locks.rglob("*")), "each engine was cancelled and released its stack"


def test_status_of_a_stack_that_does_not_exist_creates_nothing_and_render_keeps_a_folder_clean(tmp_path):
    work = project(tmp_path, "dev")
    missing = deploy(work, "status", stack="nope", check=False)
    assert missing.returncode == 1 and "stack nope" in missing.stdout + missing.stderr
    assert not list((work / ".pulumi-state").rglob("nope.json"))
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "old.yaml").write_text("kind: Stale\n")
    refused = deploy(work, "render", "--out", str(tmp_path / "busy"), check=False)
    assert refused.returncode == 2 and "is not empty" in refused.stdout
