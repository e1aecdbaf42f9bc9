"""Shared helpers for the protocol tests: decode bytes in pieces, snapshot a decoder comparably."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from playground.protocol.sse import SSEComment, SSEEvent, SSEUnterminated
from playground.protocol.stream import StreamDecoder

# The same lookup as tests/conftest.py's `captures_dir` fixture (parametrizing needs it at import).
CAPTURES = Path(__file__).resolve().parents[3] / "shared" / "captures"
if not CAPTURES.is_dir():
    CAPTURES = Path(os.environ.get("PLAYGROUND_CAPTURES", "../shared/captures")).resolve()


def all_captures(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.sse"))


def sidecar(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def decode(
    data: bytes,
    route: str = "auto",
    cuts: list[int] | None = None,
    **kwargs: Any,
) -> StreamDecoder:
    """Feed ``data`` split at ``cuts`` (sorted offsets), then finish."""
    decoder = StreamDecoder(route, **kwargs)
    last = 0
    t = 0.0
    for cut in [*(cuts or []), len(data)]:
        if cut > last:
            decoder.feed(data[last:cut], t)
            t += 0.001
            last = cut
    decoder.finish(t)
    return decoder


def sse(*events: str, end: str = "\n\n") -> bytes:
    """Build an SSE body from ``data`` payload strings (``event:`` lines given as 'name|data')."""
    out: list[str] = []
    for ev in events:
        if ev.startswith(":"):
            out.append(ev + "\n\n")
            continue
        if "|" in ev and not ev.startswith("{"):
            name, data = ev.split("|", 1)
            out.append(f"event: {name}\ndata: {data}{end}")
        else:
            out.append(f"data: {ev}{end}")
    return "".join(out).encode()


def snapshot(decoder: StreamDecoder) -> dict[str, Any]:
    """Everything a split must not change (times excluded: they depend on the pieces)."""
    state = decoder.state
    items: list[tuple[Any, ...]] = []
    for item in decoder.items:
        if isinstance(item, SSEEvent):
            items.append(
                (
                    "event",
                    item.event,
                    item.data,
                    item.id,
                    item.retry,
                    item.raw,
                    item.start,
                    item.end,
                )
            )
        elif isinstance(item, SSEComment):
            items.append(("comment", item.text, item.raw, item.start, item.end))
        elif isinstance(item, SSEUnterminated):
            items.append(("unterminated", item.event, item.data, item.raw, item.start, item.end))
    return {
        "route": decoder.route,
        "status": state.status,
        "finish": state.finish,
        "items": items,
        "choices": {
            i: (c.text.value, c.reasoning.value, c.refusal.value, c.finish, list(c.text.origins))
            for i, c in state.choices.items()
        },
        "tools": [
            (c.key, c.id, c.name, c.arguments.value, c.server, c.choice) for c in state.tool_calls
        ],
        "images": [
            (i.index, i.final, i.output_format, i.data, i.width, i.height, i.item)
            for i in state.images
        ],
        "audio": None if state.audio is None else (state.audio.format, bytes(state.audio.data)),
        "segments": state.segments,
        "signatures": state.signatures,
        "usage": state.usage,
        "error": None
        if state.error is None
        else (state.error.message, state.error.type, state.error.code),
        "findings": [(f.severity, f.code, f.message, f.item) for f in state.findings],
        "events": state.events,
        "comments": state.comments,
    }


# SSE-ish byte streams for Hypothesis: fields, colons, spaces, CR/LF/CRLF, BOMs, multibyte and
# invalid UTF-8, and random bytes between them.
_SSE_TOKENS = [
    b"data: ",
    b"data:",
    b"data",
    b"event: x",
    b"id: 7",
    b"retry: 10",
    b": c",
    b":",
    b" ",
    b"\n",
    b"\r",
    b"\r\n",
    b"\n\n",
    b"x",
    b"{}",
    b"\xc3\xa9",
    b"\xe2\x82",
    b"\xff",
    b"\xef\xbb\xbf",
    b"datum:",
]
sse_like_streams = st.lists(
    st.one_of(st.sampled_from(_SSE_TOKENS), st.binary(max_size=3)), max_size=50
).map(b"".join)
