"""The README's TypeScript, Go and Python examples (``components/package/examples``), each using
the SDK generated from the package's schema, through its language's Automation API (inline) and
the real CLI, on a user's install (``user_install``; the Python one in a virtualenv of its own
requirements and the SDK's wheel, with nothing of this repository importable):
the same objects as the Python program, registration exactly once, a bad field named in
camelCase without its value, a secret kept secret, ``parent`` and ``providers`` honoured."""

from __future__ import annotations

import json
import pathlib
import subprocess
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.yaml_stacks import objects_in

from ..conftest import ROOT, unavailable
from ..support.platform_double import platform_double

CANARY = "api-key-CANARY-2718"
CONSUMERS = ("typescript", "go", "python")


@pytest.fixture(scope="session")
def consumers() -> dict[str, list[str]]:
    """The command that runs each example's driver, built by ``scripts/install-consumers``."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / "install-consumers")], capture_output=True, text=True)
    if done.returncode != 0:
        unavailable("TypeScript and Go consumers", f"scripts/install-consumers failed: {done.stderr[-2000:]}")
    typescript, go, python = done.stdout.split()
    example = ROOT / "components" / "package" / "examples" / "python" / "deploy.py"
    return {"typescript": ["node", f"{typescript}/bin/deploy.js"], "go": [go], "python": [python, str(example)]}


Run = Callable[..., dict[str, Any]]


@pytest.fixture
def consumer(request, consumers, yaml_engine, tmp_path) -> Iterator[tuple[Run, pathlib.Path, list[str]]]:
    """Runs one example's operation in a user's environment (PATH: the CLI, node or go, the
    system's), with the stack's config; returns the driver's result line; its output is kept."""
    env = {k: v for k, v in yaml_engine.items() if k not in ("TOOLS_BIN", "PYTHONPATH")}
    env |= {
        "PULUMI_ROOT": str(pathlib.Path(yaml_engine["TOOLS_BIN"]).parent),
        "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
        "PULUMI_CONFIG_PASSPHRASE": "user-passphrase",
    }
    (tmp_path / "state").mkdir()
    (tmp_path / "work").mkdir()
    output: list[str] = []

    def run(operation: str, config: dict[str, Any], fails: bool = False) -> dict[str, Any]:
        env["CONNECTORS_EXAMPLE_CONFIG"] = json.dumps(config)
        command = [*consumers[request.param], operation, "dev", str(tmp_path / "work")]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        output.append(done.stdout + done.stderr)
        assert (done.returncode != 0) == fails, output[-1][-4000:]
        return {} if fails else json.loads(done.stdout.strip().splitlines()[-1])

    run.consumer = request.param  # type: ignore[attr-defined]
    yield run, tmp_path, output


def consumer_name(run: Run) -> str:
    return run.consumer  # type: ignore[attr-defined]


def settings(platform_url: str, render_dir: pathlib.Path, **more: Any) -> dict[str, Any]:
    given = {"platformUrl": platform_url, "renderDirectory": str(render_dir), **more}
    return {**{k: {"value": str(v)} for k, v in given.items()}, "apiKey": {"value": CANARY, "secret": True}}


def python_objects(make_stack: Any, platform_url: str, tmp_path: pathlib.Path) -> dict[Any, Any]:
    """What the Python program renders for the examples' two connectors."""
    payments = {"image": {"repository": "registry.example.com/connectors/payments", "tag": "v1.4.0"}}
    payments["env"] = [{"name": "API_KEY", "value": CANARY}]
    timestamps = {
        "image": {"repository": "registry.example.com/connectors/timestamps", "tag": "v2.0.1"},
        "replicas": 2,
        "service": {"port": 8443},
    }
    entries = [
        {"name": "payments", "namespace": "ilm", "spec": payments},
        {"name": "timestamps", "namespace": "ilm", "labels": {"team": "trust"}, "spec": timestamps},
    ]
    stack = make_stack(entries, name="python")
    stack.up()
    return objects_in(stack.render_dir)


@pytest.mark.parametrize("consumer", CONSUMERS, indirect=True)
def test_an_example_registers_once_renders_as_python_and_keeps_its_secret(consumer, make_stack):
    run, tmp_path, output = consumer
    render_dir = tmp_path / "rendered"
    with platform_double() as double:
        first = run("up", settings(double.url, render_dir))
        assert sorted(body["name"] for body in double.requests) == ["Payments", "Timestamps"]
        assert {first["outputs"]["paymentsUuid"], first["outputs"]["timestampsUuid"]} == set(double.records)
        assert objects_in(render_dir) == python_objects(make_stack, double.url, tmp_path)

        again = run("up", settings(double.url, render_dir))
        assert set(again["changes"]) == {"same"} and len(double.requests) == 2
        changed = run("up", settings(double.url, render_dir, imageTag="v1.5.0"))
        assert {k: v for k, v in changed["changes"].items() if k != "same"} == {"update": 1}
        assert len(double.requests) == 2 and changed["outputs"]["paymentsUuid"] == first["outputs"]["paymentsUuid"]

        (state_file,) = (tmp_path / "state" / ".pulumi" / "stacks").rglob("dev.json")
        state = json.loads(state_file.read_text())
        assert CANARY not in state_file.read_text() and CANARY not in "".join(output)
        resources = {(r["type"], r["urn"].rsplit("::", 1)[-1]): r for r in state["checkpoint"]["latest"]["resources"]}
        payments, timestamps = (
            resources[("connectors:index:Connector", "payments")],
            resources[("connectors:index:Connector", "timestamps")],
        )
        assert timestamps["parent"] == payments["urn"], "the program's parent option"
        assert resources[("connectors:index:Registration", "timestamps-registration")]["parent"] == timestamps["urn"]
        assert ("Deployment", "ilm", "timestamps") in objects_in(render_dir), "the provider reached the child through its parent"
        assert not any(t.startswith("pulumi-python") for t, _ in resources)
        run("destroy", settings(double.url, render_dir))
    assert len(double.requests) == 2


@pytest.mark.parametrize("consumer", CONSUMERS, indirect=True)
def test_a_bad_field_fails_preview_naming_it_in_camel_case_without_its_value(consumer):
    run, tmp_path, output = consumer
    with platform_double() as double:
        run("preview", settings(double.url, tmp_path / "rendered", gracePeriod=-987654), fails=True)
    text = output[-1]
    assert "lifecycle.terminationGracePeriodSeconds" in text and "termination_grace_period_seconds" not in text
    assert "987654" not in text
    # Python's inline runtime adds its own traceback once the engine has stopped the program
    # ("resource monitor shut down"); none comes from the package.
    echo = "resource monitor shut down" in text and "/components/" not in text
    assert "Traceback" not in text or (consumer_name(run) == "python" and echo)
    assert double.requests == []
