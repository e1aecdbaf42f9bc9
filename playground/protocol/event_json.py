"""An event's data as JSON: the ``[DONE]`` sentinel, and the parse of a long event's bytes."""

from __future__ import annotations

from collections.abc import Iterable
from time import sleep
from typing import Any, Final

import orjson

from playground.protocol.media import LetterRuns, base64_letters, remember_base64
from playground.protocol.safe_json import MAX_DEPTH, JsonTooDeep, exceeds_depth
from playground.protocol.sse import SSEEvent, data_bytes_of_raw, data_spans_of_raw

__all__ = ["LONG_EVENT", "is_done", "loads_long", "too_deep"]

LONG_EVENT: Final = 1 << 16  # raw bytes above which an event's JSON is parsed from its bytes
_loads: Final = orjson.loads
_JSONError: Final = orjson.JSONDecodeError

# A string this long in a long event is, in practice, an image's or audio's base64: it is taken
# out of the JSON before parsing (``_loads_spliced``).
_LONG_STRING: Final = 1 << 16
# What stands in the JSON for the long string while the rest is parsed: any text would do, as
# the parse is used only if exactly one key or value in it equals this one.
_STAND_IN: Final = b"playground:long-base64-string"
_MISS: Final = object()
_BACKSLASH: Final = 92


def is_done(data: str) -> bool:
    """The ``[DONE]`` sentinel (OpenAI SDK stops at any data starting with it; §1)."""
    return data == "[DONE]" or (len(data) < 16 and data.strip() == "[DONE]")


def too_deep(item: SSEEvent) -> bool:
    """Whether the event's data nests deeper than ``safe_json.MAX_DEPTH``: orjson stays the
    parser, and this is its depth check, cheap on the hot path. No data with fewer brackets than
    the limit can be too deep, and counting two bytes in the raw event (a superset of its data)
    is a pass in C; only an event with that many brackets is walked, by ``safe_json``."""
    raw = item.raw
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False
    return exceeds_depth(item.data)


def loads_long(item: SSEEvent, runs: LetterRuns | None = None) -> Any:
    """A long event's JSON from its data bytes (orjson reads UTF-8 itself); the str path only if
    that fails, so invalid UTF-8 reads as U+FFFD exactly as ``item.data`` would give it.

    Native code never hands the GIL over by itself: framing, copying out and parsing a 2.7 MB
    partial image back to back held it for about 12 ms on the reader thread, and the UI thread
    waited all that time (image_ui_block_ms). ``sleep(0)`` between the steps lets it in.
    ``runs``: what of the stream is known to be base64 letters (``StreamDecoder`` notes it).
    ``JsonTooDeep`` when the data nests deeper than ``safe_json.MAX_DEPTH``."""
    sleep(0)
    raw = item.raw
    try:
        spans = data_spans_of_raw(raw)
        if spans is not None and len(spans) == 1:
            start, stop = spans[0]
            parsed = _loads_spliced(raw, start, stop, runs, item.start)
            if parsed is not _MISS:
                return parsed
            data = raw[start:stop]  # the lines were walked already: no second walk
        else:
            data = data_bytes_of_raw(raw)
        sleep(0)
        if exceeds_depth(data):
            raise JsonTooDeep(MAX_DEPTH)
        return _loads(data)
    except _JSONError:
        if exceeds_depth(item.data):
            raise JsonTooDeep(MAX_DEPTH) from None
        return _loads(item.data)
    finally:
        sleep(0)


def _loads_spliced(raw: bytes, start: int, stop: int, runs: LetterRuns | None, at: int) -> Any:
    """The JSON in ``raw[start:stop]``, parsed with its first long string taken out and put
    back as a str, when that string is base64 (letters, then "=" padding); else ``_MISS``.

    Why: orjson reads a 2.7 MB base64 string at about 0.5 GB/s, checking every byte for escapes
    and UTF-8 (5 ms of a partial image's fold), and the fold then counts its letters again (2-4
    ms). Counted once here, the letters are known to need no unescaping, so the string is the
    bytes themselves (an ASCII decode, memcpy speed), and the fold is told (``remember_base64``).
    Exactly the value orjson gives: a base64 run has none of JSON's structural characters, so
    an unescaped quote before it opens a string token and the quote after it closes that token;
    the rest must parse, and the stand-in must be that token's value and nothing else's.
    ``raw`` starts at stream offset ``at``: what ``runs`` knows of it is not counted again."""
    opening = _quote(raw, start, stop)
    while opening >= 0:
        closing = _quote(raw, opening + 1, stop)
        if closing < 0:
            return _MISS
        if closing - opening > _LONG_STRING:
            break
        opening = _quote(raw, closing + 1, stop)
    else:
        return _MISS
    known = runs.within(at + opening + 1, at + closing) if runs is not None else None
    if known is not None:
        known = (known[0] - at, known[1] - at)  # stream offsets -> offsets in raw
    letters = base64_letters(raw, opening + 1, closing, known)
    if letters is None:
        return _MISS
    rest = raw[start : opening + 1] + _STAND_IN + raw[closing:stop]
    if exceeds_depth(rest):  # the base64 string holds no bracket: the rest's depth is the data's
        raise JsonTooDeep(MAX_DEPTH)
    sleep(0)
    try:
        parsed = _loads(rest)
    except _JSONError:
        return _MISS
    text = str(memoryview(raw)[opening + 1 : closing], "ascii")
    if not _put_back(parsed, text):
        return _MISS
    remember_base64(text, letters)
    return parsed


def _quote(raw: bytes, start: int, stop: int) -> int:
    """Where the next unescaped quote in ``raw[start:stop]`` is (-1: none): in valid JSON these
    open and close its strings in turn."""
    while True:
        found = raw.find(b'"', start, stop)
        if found <= start or raw[found - 1] != _BACKSLASH:
            return found
        run = found - 1
        while run > start and raw[run - 1] == _BACKSLASH:
            run -= 1
        if (found - run) % 2 == 0:
            return found  # an escaped backslash before it, not an escaped quote
        start = found + 1


def _put_back(parsed: Any, text: str) -> bool:
    """Replace the one value equal to the stand-in with ``text``; False (nothing replaced) if
    no value, more than one, or a key equals it."""
    stand_in = _STAND_IN.decode("ascii")
    found: list[tuple[Any, Any]] = []  # (container, key or index)
    pending = [parsed]
    while pending:
        node = pending.pop()
        pairs: Iterable[tuple[Any, Any]]
        if type(node) is dict:
            if stand_in in node:
                return False  # a key
            pairs = node.items()
        elif type(node) is list:
            pairs = enumerate(node)
        else:
            continue  # the whole document is a string or a number: orjson's path reads it
        for where, value in pairs:
            if value == stand_in:
                found.append((node, where))
            elif type(value) is dict or type(value) is list:
                pending.append(value)
    if len(found) != 1:
        return False
    container, where = found[0]
    container[where] = text
    return True
