"""Streams built to hurt a reader, at any size: the hostile benchmark's inputs and the corpus's.

Each is what a broken or hostile server can send (docs/protocol.md §0: every departure is a finding,
never a crash, never unbounded memory): an endless line, millions of unreadable events, tool-call
arguments nested thousands deep. ``scripts/make_hostile_corpus.py`` writes small ones for the
tests; ``playground bench --only hostile`` feeds big ones to ``inspect`` and to the window.
"""

from __future__ import annotations

import json
from collections.abc import Callable

__all__ = [
    "BUILDERS",
    "CORPUS",
    "deep_error_body",
    "deep_event_data",
    "deep_tool_arguments",
    "endless_line",
    "junk_bytes",
    "unreadable_events",
]

_PIECE = 4096  # brackets per streamed arguments delta


def endless_line(size: int) -> bytes:
    """One ``data:`` line that never ends: no newline, ever."""
    return b"data: " + b"x" * max(0, size - 6)


def unreadable_events(size: int) -> bytes:
    """Events whose data is not JSON, as many as fit: ``data:x`` and a blank line, 8 bytes each."""
    return b"data:x\n\n" * max(1, size // 8)


def _chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return b"data: " + json.dumps(body | {"choices": [choice]}).encode() + b"\n\n"


def deep_tool_arguments(size: int) -> bytes:
    """A chat stream whose one tool call's arguments open ``[`` about ``size / 2`` times, in
    4 KB deltas, then close them all: complete, valid, and nested far past any reader's limit."""
    start = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}}
    out = [_chunk({"role": "assistant", "tool_calls": [start]})]
    pieces = max(1, size // (2 * (_PIECE + 120)))
    for bracket in ("[", "]"):
        args = bracket * _PIECE
        delta = _chunk({"tool_calls": [{"index": 0, "function": {"arguments": args}}]})
        out.extend([delta] * pieces)
    out.append(_chunk({}, "tool_calls"))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


BUILDERS: dict[str, Callable[[int], bytes]] = {
    "line": endless_line,
    "invalid": unreadable_events,
    "deep": deep_tool_arguments,
}


def deep_event_data(size: int) -> bytes:
    """A chat stream with one event whose data nests ``[`` past the reader's limit, between
    two readable chunks: the stream must go on around it."""
    depth = max(300, size // 2)
    return (
        _chunk({"role": "assistant", "content": "Hi"})
        + b'data: {"x": '
        + b"[" * depth
        + b"]" * depth
        + b"}\n\n"
        + _chunk({}, "stop")
        + b"data: [DONE]\n\n"
    )


def deep_error_body(size: int) -> bytes:
    """An error envelope whose message is followed by nesting no reader takes whole."""
    depth = max(1500, size // 2)
    return (
        b'{"error": {"message": "quota exceeded", "detail": ' + b"[" * depth + b"]" * depth + b"}}"
    )


def junk_bytes(size: int) -> bytes:
    """Invalid UTF-8, NUL, lone CR and LF, a BOM mid-stream and a comment flood, repeated."""
    piece = b'data: \xff\xfe\x00\r\n\r:\xef\xbb\xbf comment\n\ndata: {"a": "\x00"}\n\n'
    return piece * max(1, size // len(piece))


# Builders for the corpus as well (scripts/make_hostile_corpus.py, tests/hostile/).
CORPUS: dict[str, Callable[[int], bytes]] = BUILDERS | {
    "deep-event": deep_event_data,
    "deep-error-body": deep_error_body,
    "junk": junk_bytes,
}
