"""Chat's text-chunk template: read a plain text delta without parsing the whole JSON (measured).

Most chunks of a long chat answer differ from the previous one only in the ``content`` string:
same id, model, fingerprint, same ``"logprobs":null,"finish_reason":null}]}`` tail. Once one such
chunk has been fully parsed (and the chat decoder confirmed it is nothing but choice 0's text),
its data splits into ``head`` + content literal + ``tail``. A later chunk whose data starts with
that exact ``head`` and ends with that exact ``tail``, and whose middle is a valid JSON string
body, has the same JSON structure with only that string changed (JSON is context-free: the
middle cannot open or close anything unless it contains an unescaped quote, which the check
rejects). So its text is the middle, unescaped: the same result as ``orjson.loads`` plus
``ChatDecoder.plain_text``, for a fraction of the cost. ``build`` proves the split by parsing a
probe (head + marker + tail) and comparing it with the original payload; any doubt means no
template, and the stream decoder takes the full path.

The template is matched against an event's raw bytes, framed as almost every provider frames
it: ``data: `` + head ... tail + a blank line. An event that matches is one `data` line (any
other line, before or after it, would be outside the head or tail, or put a line feed in the
middle, which is a control character no valid JSON string body holds), so its data is exactly
its middle's bytes between head and tail, and only the middle is decoded: the rest of the
event is never turned into a str.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import orjson

from playground.protocol.template_match import Template, run_texts

__all__ = ["Template", "build_template", "string_body", "template_texts"]

_PROBE: Final = "\u2063zq"  # a string no real chunk carries, to prove where the literal sits
_loads: Final = orjson.loads


def string_body(raw: str) -> str | None:
    """The text of a JSON string body (between its quotes), or None if it is not a valid one."""
    if '"' not in raw and "\\" not in raw and raw.isprintable():
        return raw  # nothing to unescape; printable means no control character either
    try:
        value = _loads('"' + raw + '"')
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is str else None


def _literal_end(data: str, start: int) -> int:
    """Index of the quote closing the JSON string that starts at ``start`` (-1 if none)."""
    pos = start
    while True:
        pos = data.find('"', pos)
        if pos < 0:
            return -1
        slashes = 0
        back = pos - 1
        while back >= start and data[back] == "\\":
            slashes += 1
            back -= 1
        if slashes % 2 == 0:
            return pos
        pos += 1


def build_template(data: str, payload: Any) -> Template | None:
    """Split ``data`` around choice 0's ``delta.content`` literal, proven by a probe parse.

    ``payload`` is ``data`` parsed; the caller has checked that it is a plain text chunk. It is
    modified (its content replaced by the probe) and must not be used afterwards.
    """
    key = data.find('"content"')
    while key >= 0:
        pos = key + 9
        while pos < len(data) and data[pos] in " \t\r\n":
            pos += 1
        if pos < len(data) and data[pos] == ":":
            pos += 1
            while pos < len(data) and data[pos] in " \t\r\n":
                pos += 1
            if pos < len(data) and data[pos] == '"':
                start = pos + 1
                end = _literal_end(data, start)
                if end < 0:
                    return None
                head, tail = data[:start], data[end:]
                try:
                    probe = _loads(head + _PROBE + tail)
                    payload["choices"][0]["delta"]["content"] = _PROBE
                except (orjson.JSONDecodeError, LookupError, TypeError):
                    return None
                if probe == payload and tail:
                    head_raw = b"data: " + head.encode()
                    tail_raw = tail.encode() + b"\n\n"
                    return (head_raw, tail_raw, len(head_raw), -len(tail_raw))
                return None
        key = data.find('"content"', key + 9)
    return None


def template_texts(raws: Sequence[bytes], tpl: Template) -> tuple[list[str], int] | None:
    """The texts of a run of events that all match ``tpl``, in order, and the number of bytes
    the events hold together; None if any does not match.

    One read of a fast stream completes a dozen chunks; instead of matching each on its own,
    their middles are cut out and checked in one pass (``template_match``, compiled) and parsed
    as one JSON array of strings.
    """
    return run_texts(raws, tpl, _loads)
