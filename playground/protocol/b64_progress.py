"""An image's base64 read while its event still arrives: its strings found and decoded in pieces."""

from __future__ import annotations

import binascii
import re
from typing import Final, Protocol

__all__ = ["B64Decoder", "B64Error", "ImageStringScanner", "StringSink"]

# Measured: a 1024x1024 partial image is 2.7 MB of SSE that arrives over many network reads. Its
# pixels can be decoded while it arrives only if something sees the base64 before the event's
# final line end; these two pieces do that on raw bytes. They only GUESS: whoever uses what they
# produce must check it against the string the protocol layer parsed from the complete event.


class B64Error(ValueError):
    """Not what ``b64decode_lenient`` would decode the same way: the caller gives up."""


_URLSAFE: Final = bytes.maketrans(b"-_", b"+/")
_a2b: Final = binascii.a2b_base64


class B64Decoder:
    """Base64 fed in pieces of any size: the bytes ``b64decode_lenient`` gives for the whole text.

    Exactly that or ``B64Error``: standard or URL-safe letters, padding optional and recomputed,
    a lone trailing letter dropped. Whitespace and stray characters, which the lenient decoder
    strips or rejects, raise here (rare; the caller then decodes the whole text the usual way).
    """

    __slots__ = ("_pad", "_rest")

    def __init__(self) -> None:
        self._rest = b""  # fewer than 4 letters waiting for their group
        self._pad = 0  # "=" seen at the end so far: only more "=" or the end may follow

    def feed(self, piece: bytes) -> bytes:
        """The bytes of the complete 4-letter groups so far."""
        if not piece:
            return b""
        body = piece.rstrip(b"=") if 61 in piece else piece  # 61 is "="
        if body and (self._pad or 61 in body):
            raise B64Error("padding before the end of the text")
        self._pad += len(piece) - len(body)
        if 45 in body or 95 in body:  # "-" or "_": the URL-safe alphabet
            body = body.translate(_URLSAFE)
        rest = self._rest
        data = rest + body if rest else body
        whole = len(data) & ~3
        self._rest = data[whole:]
        if not whole:
            return b""
        try:
            return _a2b(data[:whole] if whole != len(data) else data, strict_mode=True)
        except binascii.Error as exc:
            raise B64Error(str(exc)) from None

    def finish(self) -> bytes:
        """The bytes of the last group, padded as the lenient decoder pads it."""
        rest = self._rest
        self._rest = b""
        if len(rest) % 4 == 1:
            rest = rest[:-1]  # a lone trailing letter cannot hold a byte
        if not rest:
            return b""
        try:
            return _a2b(rest + b"=" * (-len(rest) % 4), strict_mode=True)
        except binascii.Error as exc:
            raise B64Error(str(exc)) from None


class StringSink(Protocol):
    """Receives the strings an ``ImageStringScanner`` finds, in pieces, as the bytes arrive."""

    def begin(self) -> None: ...

    def text(self, piece: bytes) -> None: ...

    def end(self) -> None: ...

    def abort(self) -> None: ...


# The fields that carry an image's base64 (docs/protocol.md §5, §7): the images API's b64_json, the
# Responses partial_image_b64 and an image_generation_call's result.
_KEY: Final = re.compile(rb'"(?:b64_json|partial_image_b64|result)"[ \t]*:[ \t]*"')
_CARRY: Final = 32  # longer than any key with its colon and spaces: a key split between reads
_MIN_TEXT: Final = 1 << 16  # shorter strings are not worth a guess (the usual path is quick)


class ImageStringScanner:
    """Finds the JSON string of an image field in raw SSE bytes, read by read.

    It does not frame SSE or parse JSON: it looks for the field's name and hands on what follows
    up to the closing quote. A line end inside the string (the event was cut, or its data was
    split over lines) or any escape other than ``\\/`` aborts it; a string shorter than 64 KiB
    is never announced.
    """

    __slots__ = ("_carry", "_escape", "_held", "_sink", "_state")

    _IDLE, _HELD, _OPEN = 0, 1, 2  # outside a string; in one, not announced yet; announced

    def __init__(self, sink: StringSink) -> None:
        self._sink = sink
        self._carry = b""  # the end of the bytes outside a string (a key may start there)
        self._state = self._IDLE
        self._escape = False  # the last piece ended with a backslash
        self._held = bytearray()  # a string's start, held until it is long enough to announce

    def feed(self, chunk: bytes) -> None:
        pos = 0
        end = len(chunk)
        while pos < end:
            if self._state != self._IDLE:
                pos = self._string(chunk, pos)
                continue
            carry = self._carry
            data = carry + chunk[pos:] if carry else chunk[pos:] if pos else chunk
            found = _KEY.search(data) if b"b64" in data or b"result" in data else None
            if found is None:
                self._carry = data[-_CARRY:]
                return
            # A match ends past the carry: the carry alone was searched before.
            pos += found.end() - len(carry)
            self._carry = b""
            self._state = self._HELD
            self._escape = False
            self._held.clear()

    def reset(self) -> None:
        """Forget a string in progress (the stream ended, or a new one begins)."""
        if self._state == self._OPEN:
            self._sink.abort()
        self._state = self._IDLE
        self._held.clear()
        self._carry = b""
        self._escape = False

    def _string(self, chunk: bytes, pos: int) -> int:
        """Take the string's bytes from ``pos``; return where scanning goes on."""
        quote = chunk.find(b'"', pos)
        stop = len(chunk) if quote < 0 else quote
        part = chunk[pos:stop]
        if 10 in part or 13 in part:  # a line end: not one JSON string on one line
            self.reset()
            lf, cr = part.find(b"\n"), part.find(b"\r")
            return pos + min(i for i in (lf, cr) if i >= 0)
        if self._escape:
            part = b"\\" + part
            self._escape = False
        if 92 in part:  # a backslash: JSON may write "/" (a base64 letter) as "\/"
            part = part.replace(b"\\/", b"/")
            if quote < 0 and part.endswith(b"\\") and part.count(b"\\") == 1:
                part = part[:-1]
                self._escape = True  # the escaped character comes with the next read
            elif 92 in part:
                self.reset()  # any other escape: not base64
                return stop
        if part:
            if self._state == self._HELD:
                held = self._held
                held += part
                if len(held) < _MIN_TEXT:
                    part = b""
                else:
                    part = bytes(held)
                    held.clear()
                    self._state = self._OPEN
                    self._sink.begin()
            if part:
                self._sink.text(part)
        if quote < 0:
            return stop
        if self._state == self._OPEN:
            self._sink.end()
        self._state = self._IDLE
        self._held.clear()
        return quote + 1
