"""The simulator's own SSE writer: one Frame is one event, encoded to bytes when it is sent."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import orjson

# Frame kinds the fault injector keys on: "head" frames open a stream, "content" frames carry
# the answer piece by piece, "tail" frames close it, and the "terminator" is the route's last event.
HEAD, CONTENT, TAIL, TERMINATOR, COMMENT = "head", "content", "tail", "terminator", "comment"


@dataclass(slots=True)
class Frame:
    """One event to write: JSON `data` (a dict) or a literal string such as "[DONE]"."""

    kind: str
    data: dict[str, Any] | str | None = None
    event: str | None = None
    comment: str | None = None
    delay: float = 0.0  # seconds to wait before this frame is written (the pace)
    extra: dict[str, Any] = field(default_factory=dict)


def dumps(obj: Any) -> str:
    try:
        return orjson.dumps(obj).decode()
    except TypeError:  # e.g. an integer wider than 64 bits echoed from the request
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


def encode(frame: Frame) -> bytes:
    """One frame as the wire shows it: an optional `event:`, one `data:` line, a blank line."""
    if frame.comment is not None:
        return f": {frame.comment}\n\n".encode()
    head = f"event: {frame.event}\n" if frame.event else ""
    body = frame.data if isinstance(frame.data, str) else dumps(frame.data)
    return f"{head}data: {body}\n\n".encode()
