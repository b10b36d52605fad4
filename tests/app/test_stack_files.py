"""``stack_files.read_settings``: a settings file read as a mapping, or refused naming the file
and where, never a line of it."""

from __future__ import annotations

import pytest

from components.app.stack_files import StackFileError, read_settings

SECRET = "hunter2-not-for-logs"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (f"config:\n  a: {SECRET}\n  b: [\n".encode(), "is not valid YAML (line 4, column 1)"),
        (f"- {SECRET}\n".encode(), "must be a mapping of settings"),
        (f"config: {SECRET}\n".encode(), "must be a mapping of settings"),
        (b"config:\n  a: \xff\xfe" + SECRET.encode() + b"\n", "is not UTF-8 text"),
    ],
    ids=["not-yaml", "a-list", "config-not-a-mapping", "not-utf-8"],
)
def test_a_file_that_is_not_settings_is_refused_naming_it_never_its_content(tmp_path, content, said):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_bytes(content)
    with pytest.raises(StackFileError) as refused:
        read_settings(path)
    assert str(refused.value).startswith(f"{path} {said}")
    assert SECRET not in str(refused.value)


def test_a_mapping_is_returned_and_an_empty_file_or_config_is_allowed(tmp_path):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("config:\n  connectors:connectors: []\n")
    assert read_settings(path) == {"config": {"connectors:connectors": []}}
    path.write_text("")
    assert read_settings(path) == {}
    path.write_text("config:\n")
    assert read_settings(path) == {"config": None}


WRITTEN = "config:\n  a: on\n  b: yes\n  c: 1:30\n  d: '2'\n  e: [1, true, x]\n  f: &x {k: 1}\n  g: {<<: *x, m: 2}\n"


def test_a_file_is_parsed_once_and_read_as_typed_values_and_as_text(tmp_path, monkeypatch):
    """Each reader of a run (the backend, the passphrase, the fingerprint before and after) asks
    for the file; it is composed once while it is unchanged, and again once edited."""
    import yaml

    from components.app import stack_files

    composed = []
    real = yaml.compose
    monkeypatch.setattr(stack_files.yaml, "compose", lambda *a, **k: composed.append(1) or real(*a, **k))
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(WRITTEN)
    first = stack_files.read_stack_document(path)
    again = stack_files.read_stack_document(path)
    assert first.typed == again.typed == yaml.safe_load(WRITTEN)
    assert first.text == again.text == yaml.load(WRITTEN, Loader=yaml.BaseLoader)
    assert first.text["config"]["a"] == "on" and first.typed["config"]["a"] is True
    assert len(composed) == 1
    first.typed["config"]["a"] = "changed by its reader"
    assert stack_files.read_settings(path)["config"]["a"] is True, "each reader gets its own copy"
    path.write_text(WRITTEN.replace("a: on", "a: off"))
    assert stack_files.read_settings(path)["config"]["a"] is False and len(composed) == 2
