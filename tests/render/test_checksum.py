"""The config checksum against vectors computed here from the algorithm's definition."""

from __future__ import annotations

import base64
import hashlib

from components.render.checksum import EMPTY_CHECKSUM, ReferencedData, config_checksum, object_checksum


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def test_no_references_is_the_hash_of_nothing():
    assert config_checksum([]) == EMPTY_CHECKSUM == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_secret_values_are_hashed_decoded_with_keys_sorted():
    data = {"b": b64(b"\x00\xffbin"), "a": b64(b"one")}
    assert object_checksum("secret", data) == sha(b"a" + b"one" + b"b" + b"\x00\xffbin")


def test_configmap_values_are_hashed_as_text():
    assert object_checksum("configmap", {"url": "https://x", "env": "prod"}) == sha(b"envprod" + b"urlhttps://x")


def test_combined_sorted_by_entry_and_duplicates_once():
    s = ReferencedData("secret", "creds", {"pw": b64(b"p")})
    c = ReferencedData("configmap", "settings", {"k": "v"})
    expected = sha(f"configmap/settings={sha(b'kv')};secret/creds={sha(b'pwp')};".encode())
    assert config_checksum([s, c, s]) == expected
    assert config_checksum([c, s]) == expected


def test_one_changed_value_changes_the_checksum():
    before = config_checksum([ReferencedData("configmap", "c", {"k": "v1"})])
    after = config_checksum([ReferencedData("configmap", "c", {"k": "v2"})])
    assert before != after
