"""Faults on a recorded body: the simulator's faults, applied to bytes instead of to frames.

A replay has no frames to damage, only reads with their times, so each fault strikes at a byte
offset: the end of the sixth event (or of half of them, in a short stream; half the body when it
is not SSE), where the live simulator strikes after six content frames. The reads are cut there,
so what comes before is exactly what was recorded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from playground.sim.faults import MIDSTREAM_MESSAGE
from playground.sim.framing import TAIL, Frame, encode

__all__ = ["DROP", "STALL", "Piece", "plan_body"]

TRIGGER_AFTER: Final = 6
DROP: Final = "drop"
STALL: Final = "stall"
_EVENT_END: Final = re.compile(rb"(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)")
_GARBAGE: Final = bytes(range(0x80, 0x100)) + b"\x00\x01\x02\xff\xfe\xfd garbage \xc3\x28\xa0\xa1"


@dataclass(frozen=True, slots=True)
class Piece:
    """One write of the replay: bytes at ``t`` seconds, or a ``DROP``/``STALL`` marker."""

    t: float
    data: bytes = b""
    marker: str | None = None


def _event_ends(body: bytes) -> list[int]:
    return [m.end() for m in _EVENT_END.finditer(body)]


def _cut(pieces: list[Piece], offset: int) -> tuple[list[Piece], list[Piece]]:
    """The pieces before byte ``offset`` and from it on, the piece holding it split in two."""
    before: list[Piece] = []
    after: list[Piece] = []
    pos = 0
    for piece in pieces:
        end = pos + len(piece.data)
        if end <= offset:
            before.append(piece)
        elif pos >= offset:
            after.append(piece)
        else:
            before.append(Piece(piece.t, piece.data[: offset - pos]))
            after.append(Piece(piece.t, piece.data[offset - pos :]))
        pos = end
    return before, after


def _error(data: dict[str, Any], event: str | None = None) -> bytes:
    return encode(Frame(TAIL, data, event=event))


def error_tail(route: str | None) -> bytes:
    """The route's mid-stream error, shaped as the live simulator ends such a stream."""
    err = {"type": "server_error", "code": "server_error", "message": MIDSTREAM_MESSAGE}
    if route == "messages":
        anthropic = {"type": "error", "error": {"type": "api_error", "message": MIDSTREAM_MESSAGE}}
        return _error(anthropic, "error") + _error({"type": "message_stop"}, "message_stop")
    if route == "responses":
        failed = {
            "type": "response.failed",
            "response": {
                "id": "resp_replay",
                "object": "response",
                "status": "failed",
                "error": {"code": "server_error", "message": MIDSTREAM_MESSAGE},
                "output": [],
            },
        }
        return _error({"type": "error", "error": err | {"param": None}}) + _error(failed)
    if route in ("images", "music"):
        return _error({"type": "error", "error": err}, "error") + b"data: [DONE]\n\n"
    if route in ("speech", "transcription"):
        return _error({"type": "error", "error": err}) + b"data: [DONE]\n\n"
    chunk = {
        "id": "chatcmpl-replay",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}],
        "error": {
            "code": 500,
            "message": MIDSTREAM_MESSAGE,
            "type": "server_error",
            "metadata": {"error_type": "server"},
        },
    }
    return _error(chunk) + b"data: [DONE]\n\n"


def _split_utf8(pieces: list[Piece]) -> list[Piece]:
    """Every multi-byte UTF-8 character cut after its lead byte, so no read holds one whole."""
    out: list[Piece] = []
    for piece in pieces:
        data = piece.data
        start = 0
        for i, byte in enumerate(data):
            if 0xC2 <= byte <= 0xF4 and i + 1 < len(data):
                out.append(Piece(piece.t, data[start : i + 1]))
                start = i + 1
        if start < len(data):
            out.append(Piece(piece.t, data[start:]))
    return out


def plan_body(chunks: list[tuple[float, bytes]], fault: str, route: str | None) -> list[Piece]:
    """The writes of a replay with ``fault`` applied (an HTTP fault is answered before this)."""
    pieces = [Piece(t, data) for t, data in chunks if data]
    if fault == "split-utf8":
        return _split_utf8(pieces)
    body = b"".join(p.data for p in pieces)
    ends = _event_ends(body)
    if fault == "after-terminator":
        if not ends:
            return pieces
        starts = [0, *ends[:-1]]
        again = -2 if len(ends) > 1 else -1
        t = pieces[-1].t if pieces else 0.0
        return [*pieces, Piece(t, body[starts[again] : ends[again]])]
    strike = min(TRIGGER_AFTER, max(1, len(ends) // 2))
    offset = ends[strike - 1] if ends else len(body) // 2
    before, after = _cut(pieces, offset)
    t = after[0].t if after else (before[-1].t if before else 0.0)
    if fault == DROP:
        return [*before, Piece(t, marker=DROP)]
    if fault == STALL:
        return [*before, Piece(t, marker=STALL), *after]
    if fault == "midstream-error":
        return [*before, Piece(t, error_tail(route))]
    if fault == "garbage":
        return [*before, Piece(t, _GARBAGE + b"\n\n"), *after]
    if fault == "unknown-events":
        unknown = _error({"type": "sim.replay_annotation", "note": "unknown event"}, "sim.unknown")
        return [*before, Piece(t, unknown), *after]
    if fault == "bad-json" and len(ends) > strike:
        event, rest = _cut(after, ends[strike] - offset)
        whole = b"".join(p.data for p in event).rstrip(b"\r\n")
        return [*before, Piece(t, whole[: max(12, len(whole) // 2)] + b"\n\n"), *rest]
    return pieces
