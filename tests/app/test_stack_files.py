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
