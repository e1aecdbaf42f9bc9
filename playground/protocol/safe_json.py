"""The one JSON reader for text from the wire or from disk: depth-limited, raising only ValueError.

Why a reader of our own around orjson: orjson 3.8 reads JSON of any depth, and Python's
``json`` raises ``RecursionError`` (not a ``ValueError``) past about 1,000 levels; either way a
value nested thousands deep then breaks whatever walks it next (``json.dumps``, an indenting
view, a recursive projection). A value deeper than ``MAX_DEPTH`` is refused here, as
``JsonTooDeep``, before anything is built from it, so every caller catches one exception type
(``ValueError``) for everything a hostile or damaged text can do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

import orjson

__all__ = [
    "MAX_DEPTH",
    "JsonTooDeep",
    "exceeds_depth",
    "exceeds_depth_in_pieces",
    "loads",
    "loads_or",
]

# Deeper than any request or response a provider documents (tool schemas nest a few dozen levels
# at most), shallow enough that every recursive walk in Python stays far from its recursion limit.
MAX_DEPTH: Final = 256

# A JSON string (skipped whole: brackets inside it do not nest), and every byte but a bracket.
_STRING: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
_OPENERS: Final = frozenset(b"[{")
# The same, as tokens found one at a time (a string, an opener, a closer), for long texts.
_TOKENS: Final = re.compile(rb'("(?:[^"\\]|\\.)*")|([\[{])|([\]}])', re.DOTALL)
_TOKENS_STR: Final = re.compile(r'("(?:[^"\\]|\\.)*")|([\[{])|([\]}])', re.DOTALL)
_COPIED_MAX: Final = 1 << 20  # bytes of text checked through copies (C speed) at most
# Pieces of a text: a token as above, or (group 4) a quote whose string goes on past the piece.
_PIECE_TOKENS: Final = re.compile(r'("(?:[^"\\]|\\.)*")|([\[{])|([\]}])|(")', re.DOTALL)
_IN_STRING: Final = re.compile(r'(?:[^"\\]|\\.)*', re.DOTALL)


class JsonTooDeep(ValueError):
    """The text nests arrays and objects deeper than the reader's limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")
        self.limit = limit


def exceeds_depth(data: str | bytes | bytearray | memoryview, limit: int = MAX_DEPTH) -> bool:
    """Whether ``data`` opens more than ``limit`` arrays or objects inside one another.

    Counting the openers is one pass in C; only a text with more openers than the limit is
    looked at closer: its strings cut out and every other byte but a bracket dropped (both in
    C), then the brackets walked, stopping as soon as the limit is passed. A text over
    ``_COPIED_MAX`` is walked token by token instead, without those copies: three of an 8 MB
    tool call's arguments were most of what reading it cost (``playground bench --only
    hostile``)."""
    if isinstance(data, str):
        if data.count("[") + data.count("{") <= limit:
            return False
        if len(data) > _COPIED_MAX:
            return _walk_exceeds(_TOKENS_STR.finditer(data), limit)
        raw = data.encode("utf-8", "surrogatepass")
    else:
        raw = data if isinstance(data, bytes) else bytes(data)
        if raw.count(b"[") + raw.count(b"{") <= limit:
            return False
        if len(raw) > _COPIED_MAX:
            return _walk_exceeds(_TOKENS.finditer(raw), limit)
    brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = 0
    for byte in brackets:
        if byte in _OPENERS:
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _walk_exceeds(tokens: Iterator[re.Match[str]] | Iterator[re.Match[bytes]], limit: int) -> bool:
    """``exceeds_depth`` over the tokens of ``_TOKENS``: group 1 a string, 2 an opener."""
    depth = 0
    for token in tokens:
        kind = token.lastindex
        if kind == 2:
            depth += 1
            if depth > limit:
                return True
        elif kind == 3:
            depth -= 1
    return False


def exceeds_depth_in_pieces(pieces: Sequence[str], limit: int = MAX_DEPTH) -> bool:
    """``exceeds_depth("".join(pieces), limit)``, without that join when the text is long.

    A tool call's arguments are kept as the pieces they arrived in; joined whole they were a
    second copy of megabytes beside the pieces, the largest part of what reading 8 MB of deep
    arguments cost (``playground bench --only hostile``). A string may run across pieces: its
    quote is followed into the next ones, and, as the regular expression does on the whole
    text, a quote whose string never closes is passed over and the walk goes on after it.
    """
    if sum(piece.count("[") + piece.count("{") for piece in pieces) <= limit:
        return False
    if sum(map(len, pieces)) <= _COPIED_MAX:
        return exceeds_depth("".join(pieces), limit)
    depth = 0
    index, pos = 0, 0  # where the walk is: piece ``index``, character ``pos``
    count = len(pieces)
    while index < count:
        piece = pieces[index]
        opened: tuple[int, int] | None = None
        for token in _PIECE_TOKENS.finditer(piece, pos):
            kind = token.lastindex
            if kind == 2:
                depth += 1
                if depth > limit:
                    return True
            elif kind == 3:
                depth -= 1
            elif kind == 4:
                opened = (index, token.start())
                break
        if opened is None:
            index, pos = index + 1, 0
            continue
        closed = _string_end(pieces, opened[0], opened[1] + 1)
        # A string that never closes is no string: the walk goes on just after its quote.
        index, pos = closed if closed is not None else (opened[0], opened[1] + 1)
    return False


def _string_end(pieces: Sequence[str], index: int, pos: int) -> tuple[int, int] | None:
    """Where the string whose characters start at ``pieces[index][pos]`` ends (just after its
    closing quote, as ``(piece, position)``), or None when the text ends first."""
    escaped = False  # the last piece ended on a backslash: the next character is escaped
    while index < len(pieces):
        piece = pieces[index]
        if escaped and piece:
            pos += 1
            escaped = False
        if not escaped:
            found = _IN_STRING.match(piece, pos)
            stop = found.end() if found is not None else len(piece)
            if stop < len(piece):
                if piece[stop] == '"':
                    return (index, stop + 1)
                escaped = True  # a backslash, the piece's last character
        index, pos = index + 1, 0
    return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: str | bytes | bytearray | memoryview, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in ``data`` (RFC 8259: no NaN or Infinity); ``JsonTooDeep`` past
    ``max_depth`` levels, ``ValueError`` for anything else that is not JSON. Never another
    exception type, whatever ``data`` holds."""
    if exceeds_depth(data, max_depth):
        raise JsonTooDeep(max_depth)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        # orjson refuses integers beyond 64 bits, which JSON allows and Python's reader takes;
        # the depth is bounded above, so Python's recursive reader cannot overflow here.
        try:
            text = data if isinstance(data, str) else bytes(data)
            return json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError, TypeError):
            raise ValueError(str(error)) from None


def loads_or(
    data: str | bytes | bytearray | memoryview, default: Any = None, *, max_depth: int = MAX_DEPTH
) -> Any:
    """``loads(data)``, or ``default`` when ``data`` is not JSON or is too deep."""
    try:
        return loads(data, max_depth=max_depth)
    except ValueError:
        return default
