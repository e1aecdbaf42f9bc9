"""A streaming JSON pretty-printer: feed text as it grows, get back only the new output."""

from __future__ import annotations

__all__ = ["INDENT_LEVELS", "JsonPrettyStream", "pretty"]

_SPACE = frozenset(" \t\r\n")
# Past this many levels nesting is written on one line, as compact JSON: a line's indent is at
# most 32 spaces and a line is never started for a bracket deeper than that, so the text and
# its lines are a fixed multiple of the input whatever the nesting. (An indent that grew with
# depth made 40 KB of nested brackets 4.7 GB of text; a line per bracket, capped indent or
# not, made the tool card's document 1.2 GB for 1 MB of brackets.)
INDENT_LEVELS = 16


def pretty(text: str, indent: int = 2) -> str:
    """``text`` (JSON, whole or not) laid out as ``JsonPrettyStream`` lays it out."""
    return JsonPrettyStream(indent).feed(text)


class JsonPrettyStream:
    """Indents partial JSON incrementally, so tool-call arguments show pretty as they grow.

    Output is append-only (a widget appends it with a cursor, never re-formats the whole text per
    token). Strings are copied verbatim; whitespace outside strings is dropped and re-made. It is a
    best effort: text that is not JSON still comes out readable, never raises. Nesting past
    ``INDENT_LEVELS`` stays on its line, so the output and its lines stay linear in the input.
    """

    __slots__ = ("_depth", "_escape", "_in_string", "_indent", "_pending_open")

    def __init__(self, indent: int = 2) -> None:
        self._indent = indent
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._pending_open = False  # just opened { or [: the newline waits to see if it is empty

    @property
    def open(self) -> bool:
        """Inside a string or an unclosed object/array: the text so far cannot be whole JSON."""
        return self._in_string or self._depth > 0

    def feed(self, text: str) -> str:
        out: list[str] = []
        add = out.append
        pad = self._indent
        levels = INDENT_LEVELS
        for ch in text:
            if self._in_string:
                add(ch)
                if self._escape:
                    self._escape = False
                elif ch == "\\":
                    self._escape = True
                elif ch == '"':
                    self._in_string = False
                continue
            if ch in _SPACE:
                continue
            if self._pending_open:
                self._pending_open = False
                if ch in "}]":
                    self._depth = max(0, self._depth - 1)
                    add(ch)
                    continue
                if self._depth <= levels:
                    add("\n" + " " * (pad * self._depth))
            if ch in "{[":
                add(ch)
                self._depth += 1
                self._pending_open = True
            elif ch in "}]":
                self._depth = max(0, self._depth - 1)
                if self._depth < levels:
                    add("\n" + " " * (pad * self._depth) + ch)
                else:
                    add(ch)
            elif ch == ",":
                if self._depth <= levels:
                    add(",\n" + " " * (pad * self._depth))
                else:
                    add(", ")
            elif ch == ":":
                add(": ")
            elif ch == '"':
                self._in_string = True
                add(ch)
            else:
                add(ch)
        return "".join(out)
