"""The main command's engine settings (the engine runs in tests/engine and tests/fleet)."""

from __future__ import annotations

import json

import pytest
import yaml

from components.app.automation.backend import LOCAL_PASSPHRASE, Checkpoints, SettingsError, checkpoints, passphrase, state_backend
from components.app.automation.pulumi_cli import Cli
from components.app.command.main import arguments, run_options

FILE, POSTGRES, CLOUD = "file:///state", "postgres://u:p@h/db", "https://api.pulumi.com"


@pytest.mark.parametrize(
    ("operation", "flags", "backend", "skipped", "journaled"),
    [
        ("preview", [], FILE, True, False),
        ("preview", ["--skip-checkpoints"], CLOUD, True, False),
        ("up", [], FILE, True, True),
        ("up", [], POSTGRES, True, True),
        ("up", [], CLOUD, False, False),
        ("up", ["--skip-checkpoints"], CLOUD, True, False),
        ("up", ["--skip-checkpoints"], FILE, True, True),
        ("up", ["--checkpoints"], FILE, False, True),
        ("destroy", [], FILE, False, True),
        ("destroy", ["--skip-checkpoints"], FILE, True, True),
        ("destroy", [], CLOUD, False, False),
        ("refresh", [], POSTGRES, False, True),
    ],
)
def test_an_up_skips_checkpoints_and_journals_where_the_backend_keeps_a_journal(operation, flags, backend, skipped, journaled):
    assert checkpoints(run_options(arguments([operation, *flags])), backend) == Checkpoints(skipped, journaled)


@pytest.mark.parametrize("flags", [["preview", "--checkpoints"], ["up", "--checkpoints", "--skip-checkpoints"]])
def test_checkpoints_is_a_flag_of_up_alone(flags, capsys):
    with pytest.raises(SystemExit):
        arguments(flags)
    assert "--checkpoints applies to up only" in capsys.readouterr().err


def test_skip_checkpoints_is_an_option_of_every_operation():
    assert arguments(["up", "--skip-checkpoints"]).skip_checkpoints is True
    assert arguments(["up"]).skip_checkpoints is False


def stack_file(tmp_path, **settings):
    (tmp_path / "stacks").mkdir(exist_ok=True)
    (tmp_path / "stacks" / "Pulumi.s.yaml").write_text(yaml.safe_dump({"config": {}, **settings}))
    return tmp_path


@pytest.mark.parametrize("backend", ["postgres://team-db/pulumi", "s3://team-state", "https://api.pulumi.com"])
def test_the_local_passphrase_is_refused_for_a_shared_backend(monkeypatch, tmp_path, backend):
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE", raising=False)
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE_FILE", raising=False)
    with pytest.raises(SettingsError, match=r"set PULUMI_CONFIG_PASSPHRASE .* or give the stack a KMS secrets provider"):
        passphrase(stack_file(tmp_path, encryptionsalt="v1:salt"), "s", None, backend)
    monkeypatch.setenv("PULUMI_CONFIG_PASSPHRASE", "team-secret")
    assert passphrase(tmp_path, "s", None, backend) == "team-secret"


def test_the_local_passphrase_serves_local_state_and_kms_stacks_need_none(monkeypatch, tmp_path):
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE", raising=False)
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE_FILE", raising=False)
    assert passphrase(stack_file(tmp_path), "s", None, f"file://{tmp_path}/state") == LOCAL_PASSPHRASE
    shared = "postgres://team-db/pulumi"
    assert passphrase(stack_file(tmp_path, secretsprovider="awskms://alias/state"), "s", None, shared) is None
    assert passphrase(stack_file(tmp_path), "s", "gcpkms://projects/p/keys/k", shared) is None


def test_a_pulumi_cloud_stack_needs_no_passphrase_unless_it_has_one(monkeypatch, tmp_path):
    """The Pulumi Cloud encrypts a new stack's secrets itself; one made with a passphrase has a salt."""
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE", raising=False)
    monkeypatch.delenv("PULUMI_CONFIG_PASSPHRASE_FILE", raising=False)
    assert passphrase(stack_file(tmp_path), "s", None, "https://api.pulumi.com") is None
    assert passphrase(tmp_path / "no-such-project", "s", None, "https://pulumi.team.example") is None
    with pytest.raises(SettingsError):
        passphrase(stack_file(tmp_path, encryptionsalt="v1:salt"), "s", None, "https://api.pulumi.com")


@pytest.mark.parametrize("built", [False, True])
def test_state_goes_to_the_backend_set_else_the_users_login_else_the_project(monkeypatch, tmp_path, built):
    """``pulumi login`` counts for the user's own CLI (its PULUMI_HOME); the built one has none;
    a project whose ``.pulumi-state/`` holds stacks keeps them there whatever the login."""
    cli = Cli(tmp_path / "bin", None if not built else str(tmp_path / "built-home"), built)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PULUMI_HOME", str(home))
    monkeypatch.delenv("PULUMI_BACKEND_URL", raising=False)
    local = (f"file://{tmp_path / '.pulumi-state'}", ".pulumi-state/ in the project")
    assert state_backend(tmp_path, cli) == local
    (home / "credentials.json").write_text(json.dumps({"current": "s3://team-state", "accounts": {}}))
    assert state_backend(tmp_path, cli) == (local if built else ("s3://team-state", "the backend of your pulumi login"))
    (tmp_path / ".pulumi-state" / ".pulumi").mkdir(parents=True)
    assert state_backend(tmp_path, cli) == local
    (tmp_path / ".pulumi-state" / ".pulumi").rmdir()
    (home / "credentials.json").write_text("{not json")
    assert state_backend(tmp_path, cli) == local
    monkeypatch.setenv("PULUMI_BACKEND_URL", "postgres://user:password@team-db/pulumi")
    assert state_backend(tmp_path, cli) == ("postgres://user:password@team-db/pulumi", "PULUMI_BACKEND_URL")


def test_flags_that_belong_to_other_operations_are_refused():
    for argv in (["render"], ["destroy", "--refresh"], ["up", "--stacks", "p-*", "--shard", "3/2"]):
        with pytest.raises(SystemExit):
            arguments(argv)
    assert arguments(["up", "--stacks", "p-*", "--shard", "2/4"]).shard == (2, 4)


def test_an_inline_run_collects_cycles_less_often_and_never_rescans_the_imported_heap():
    import gc

    from components.app.automation.workspace import YOUNG_THRESHOLD, collect_less_often

    before = gc.get_threshold()
    try:
        collect_less_often()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
