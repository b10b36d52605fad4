"""``command.change_detection`` without the engine: what a fingerprint keeps after an ``up``, and
why a run is decided on, for inputs the engine tests cannot reach (an edit while the run runs,
a stack file that is not YAML). The engine's view: ``tests/fleet/test_change_detection.py``."""

from __future__ import annotations

import pytest

from components.app.command.change_detection import KEY, Place, forget, reason_to_run, remember, starting_inputs
from components.app.command.runs import RunOptions
from components.app.command.stack_inputs import Recorder, settings_digest

from .conftest import STACK_FILE


def kept(place: Place) -> bool:
    store = place.store("dev")
    assert store is not None
    return store.get(KEY) is not None


def test_an_up_keeps_the_inputs_it_started_from_and_then_the_stack_is_unchanged(place):
    before = starting_inputs(place, "dev")
    assert before is not None
    remember(place, "dev", Recorder(), before)
    assert kept(place)
    assert reason_to_run(place, RunOptions("up", "dev", str(place.work_dir))) is None


def test_an_edit_while_the_up_runs_keeps_no_fingerprint(place, capsys):
    """What the run applied is not what the stack file says now: the next up runs."""
    before = starting_inputs(place, "dev")
    assert before is not None
    (place.work_dir / "stacks" / "Pulumi.dev.yaml").write_text(STACK_FILE.replace("out", "elsewhere"))
    remember(place, "dev", Recorder(), before)
    assert not kept(place)
    assert "its inputs changed while it ran" in capsys.readouterr().out


def install(place: Place, plugin: str) -> None:
    """What ``pulumi plugin install`` or the engine's on-demand install leaves in the plugin cache."""
    (place.work_dir.parent / "home" / "plugins" / plugin).mkdir(parents=True)
    (place.work_dir.parent / "home" / "plugins" / f"{plugin}.lock").touch()


def test_a_plugin_the_up_installs_as_it_runs_is_part_of_what_it_ran_with(place, capsys):
    """A first run installs the Kubernetes plugin while it runs (the engine fetches a provider it
    lacks as it loads it): that plugin is what the run ran with, so the next up is not run."""
    before = starting_inputs(place, "dev")
    assert before is not None
    install(place, "resource-kubernetes-v4.25.0")  # while the engine runs
    remember(place, "dev", Recorder(), before)
    assert "its inputs changed while it ran" not in capsys.readouterr().out
    assert kept(place)
    assert reason_to_run(place, RunOptions("up", "dev", str(place.work_dir))) is None


def test_a_plugin_installed_after_the_up_or_removed_while_it_ran_is_a_change(place):
    install(place, "resource-kubernetes-v4.25.0")
    before = starting_inputs(place, "dev")
    assert before is not None
    remember(place, "dev", Recorder(), before)
    install(place, "resource-kubernetes-v4.26.0")  # after the up: an upgrade, a reason to run
    assert reason_to_run(place, RunOptions("up", "dev", str(place.work_dir))) == "the plugins installed changed"

    before = starting_inputs(place, "dev")
    assert before is not None
    forget(place, "dev")  # as the up starts
    (place.work_dir.parent / "home" / "plugins" / "resource-kubernetes-v4.25.0").rmdir()  # while it runs
    remember(place, "dev", Recorder(), before)
    assert not kept(place)


def test_an_edit_while_the_up_runs_keeps_no_fingerprint_even_with_a_plugin_installed(place):
    before = starting_inputs(place, "dev")
    assert before is not None
    install(place, "resource-kubernetes-v4.25.0")
    (place.work_dir / "stacks" / "Pulumi.dev.yaml").write_text(STACK_FILE.replace("out", "elsewhere"))
    remember(place, "dev", Recorder(), before)
    assert not kept(place)


def test_the_salt_a_first_run_writes_is_no_change(place):
    file = place.work_dir / "stacks" / "Pulumi.dev.yaml"
    first = settings_digest(file, place.work_dir / "Pulumi.yaml")
    file.write_text("encryptionsalt: v1:abc:def\n" + STACK_FILE)
    assert settings_digest(file, place.work_dir / "Pulumi.yaml") == first
    file.write_text(STACK_FILE + "  connectors:createNamespaces: true\n")
    assert settings_digest(file, place.work_dir / "Pulumi.yaml") != first


@pytest.mark.parametrize("text", ["config: [unclosed\n", "- a list\n", "just words\n"])
def test_a_stack_file_that_is_not_a_mapping_is_a_reason_to_run_never_a_traceback(place, text):
    before = starting_inputs(place, "dev")
    assert before is not None
    remember(place, "dev", Recorder(), before)
    (place.work_dir / "stacks" / "Pulumi.dev.yaml").write_text(text)
    assert reason_to_run(place, RunOptions("up", "dev", str(place.work_dir))) == "its settings are refused (the run says why)"
    assert starting_inputs(place, "dev") is None


def test_a_fingerprint_that_is_not_one_is_a_reason_to_run(place):
    from components.registration import journal

    store = place.store("dev")
    assert store is not None
    for stored in ("not json", "[1, 2]"):
        store.put(KEY, journal.Entry("", "fingerprint", stored))
        assert reason_to_run(place, RunOptions("up", "dev", str(place.work_dir))) == "its fingerprint could not be read"


def test_an_in_cluster_platform_address_that_now_resolves_changes_the_route_part():
    """``auto`` decides a registration's route by whether an in-cluster name resolves from here:
    a change of network (a VPN, running in the cluster) changes the route, so the stack runs."""
    from components.app.command.stack_inputs import routes_digest

    def entry(url: str) -> dict:
        return {"name": "c", "spec": {"registration": {"platformUrl": url}}}

    settings = {"connectors:connectors": [entry("http://core.ilm.svc.cluster.local:8080/api"), entry("https://core.example.com")]}
    looked_up: list[str] = []

    def resolves(answer: bool):
        def lookup(host: str) -> bool:
            looked_up.append(host)
            return answer

        return lookup

    assert routes_digest(settings, resolves(False)) != routes_digest(settings, resolves(True))
    assert set(looked_up) == {"core.ilm.svc.cluster.local"}, "only in-cluster names decide a route"
    assert routes_digest({"connectors:connectors": [entry("https://core.example.com")]}, resolves(False)) == routes_digest({})
