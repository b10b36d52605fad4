"""``registration.answers``: answers read within bounds, every malformed one a fixed phrase."""

from __future__ import annotations

import gzip
import zlib

import pytest

from components.registration.answers import BadAnswer, nesting_depth, parse_json, read_body


@pytest.mark.parametrize(
    ("chunks", "encoding", "expected"),
    [
        ([b'{"a":', b"1}"], "", b'{"a":1}'),
        ([gzip.compress(b"hello")], "gzip", b"hello"),
        ([zlib.compress(b"hello")], "deflate", b"hello"),
        ([b"x"], "identity", b"x"),
        ([], "gzip", b""),
    ],
)
def test_read_body(chunks, encoding, expected):
    assert read_body(chunks, encoding) == expected


@pytest.mark.parametrize(
    ("chunks", "encoding", "limit", "phrase"),
    [
        ([b"x" * 11], "", 10, "larger than 0 KiB"),
        ([gzip.compress(b"x" * 5000)], "gzip", 4096, "larger than 4 KiB"),
        ([b"not gzip"], "gzip", 100, "could not be decoded"),
        ([gzip.compress(b"hello")[:-4]], "gzip", 100, "could not be decoded"),
        ([b"x"], "br", 100, "an encoding this program does not read"),
        ([b"x"], "gzip, deflate", 100, "an encoding this program does not read"),
    ],
)
def test_a_body_that_cannot_be_used(chunks, encoding, limit, phrase):
    with pytest.raises(BadAnswer, match=phrase):
        read_body(chunks, encoding, limit)


@pytest.mark.parametrize(
    ("text", "depth"),
    [(b"1", 0), (b"[]", 1), (b'{"a": [[{}]]}', 4), (b'"[[[["', 0), (b'["\\"[", []]', 2)],
)
def test_nesting_depth(text, depth):
    assert nesting_depth(text) == depth


@pytest.mark.parametrize(
    ("body", "expected"),
    [(b"", None), (b"  ", None), (b'{"uuid": "u"}', {"uuid": "u"}), (b"[1, 2]", [1, 2])],
)
def test_parse_json(body, expected):
    assert parse_json(body) == expected


@pytest.mark.parametrize(
    ("body", "phrase"),
    [(b"[" * 65 + b"]" * 65, "nested more than 64 levels"), (b"{nope", "not JSON"), (b"\xff", "not JSON")],
)
def test_parse_json_refuses(body, phrase):
    with pytest.raises(BadAnswer, match=phrase):
        parse_json(body)
