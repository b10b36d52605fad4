"""The platform's answers, read within bounds: at most ``MAX_BODY`` bytes once decoded (a
compressed answer is inflated only up to that), nested at most ``MAX_DEPTH`` levels, then JSON.

Every way an answer can be malformed ends in ``BadAnswer`` with a fixed phrase: nothing of the
answer itself reaches a message."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from typing import Any

from .settings import MAX_BODY, MAX_DEPTH

ACCEPTED_ENCODINGS = "gzip, deflate"


class BadAnswer(Exception):
    """An answer that cannot be used; its message is a fixed phrase."""


class _Decoder:
    """Inflates a ``Content-Encoding`` without ever producing more than ``limit`` bytes."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.limit = limit
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise BadAnswer("the platform's answer used an encoding this program does not read")
        self.inflate = None
        if codings:
            self.inflate = zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in codings[0] else zlib.MAX_WBITS)

    def feed(self, data: bytes, room: int) -> bytes:
        if self.inflate is None:
            return data[: room + 1]
        try:
            return self.inflate.decompress(data, room + 1)
        except zlib.error:
            raise BadAnswer("the platform's answer could not be decoded") from None

    def finish(self) -> None:
        if self.inflate is not None and not self.inflate.eof:
            raise BadAnswer("the platform's answer could not be decoded")


def read_body(chunks: Iterable[bytes], encoding: str = "", limit: int = MAX_BODY) -> bytes:
    """The decoded body, refused as soon as it (or its raw bytes) would pass ``limit``."""
    decoder = _Decoder(encoding, limit)
    body = bytearray()
    raw = 0
    for chunk in chunks:
        raw += len(chunk)
        body += decoder.feed(chunk, limit - len(body))
        if len(body) > limit or raw > limit:
            raise BadAnswer(f"the platform's answer was larger than {limit // 1024} KiB")
    if body:
        decoder.finish()
    return bytes(body)


def nesting_depth(text: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (strings skipped), without recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in text:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The answer as JSON (None when empty)."""
    if not body.strip():
        return None
    if nesting_depth(body) > max_depth:
        raise BadAnswer(f"the platform's answer was nested more than {max_depth} levels deep")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise BadAnswer("the platform's answer was not JSON") from None
