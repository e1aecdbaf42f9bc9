"""JSON written as it is encoded, a slice at a time, a ``TextBuffer`` from its pieces, never joined.

``--dump-state`` writes what the window shows, a tool call's arguments among it. Encoded whole,
that text was one more copy of itself; joined from its pieces first, another: with 8 MB of
arguments the window's peak memory was four times the input (``playground bench --only
hostile``). Here a ``TextBuffer`` value is written piece by piece (JSON escapes each character
on its own, so the pieces escaped one by one are the text escaped whole), and the rest of the
value as the standard library encodes it: the same text as ``json.dump`` of the value with
each buffer's ``value`` in its place.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any, Final

from playground.protocol.text_buffer import TextBuffer

__all__ = ["write_json"]

_SLICE: Final = 1 << 20  # characters encoded and written at a time


def write_json(value: Any, write: Callable[[str], object], *, indent: int | None = 2) -> None:
    """Write ``value`` as JSON through ``write`` (``ensure_ascii=False``, ``default=str``);
    ``TextBuffer`` values anywhere in it are written as their text."""
    # Each buffer stands in the encoder's output as a marker of its own: a string no value holds
    # (a random token), which the encoder yields as a chunk of its own (its ``default`` path).
    token = secrets.token_hex(8)
    buffers: dict[str, TextBuffer] = {}  # the encoded marker: its buffer

    def stand_in(obj: object) -> object:
        if isinstance(obj, TextBuffer):
            marker = f"\x00{token} {len(buffers):08d}\x00"
            buffers[json.dumps(marker)] = obj
            return marker
        return str(obj)

    encoder = json.JSONEncoder(indent=indent, ensure_ascii=False, default=stand_in)
    marker_length = len(json.dumps(f"\x00{token} {0:08d}\x00"))
    for chunk in encoder.iterencode(value):
        buffer = buffers.pop(chunk, None) if len(chunk) == marker_length else None
        if buffer is not None:
            _write_text(buffer, encoder, write)
            continue
        for at in range(0, len(chunk), _SLICE):
            write(chunk[at : at + _SLICE])


def _write_text(
    buffer: TextBuffer, encoder: json.JSONEncoder, write: Callable[[str], object]
) -> None:
    """``buffer``'s text as a JSON string, escaped and written a slice of a piece at a time."""
    write('"')
    for piece in buffer.pieces():
        for at in range(0, len(piece), _SLICE):
            write(encoder.encode(piece[at : at + _SLICE])[1:-1])
    write('"')
