"""Helpers for the widget and inspector tests: hand-built states, real captures, media bytes."""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path

from playground.protocol.state import StreamState, TextBuffer
from playground.protocol.stream import StreamDecoder

# One chat chunk as OpenAI frames it (PROTOCOL.md §2), for bulk timeline tests.
CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk",'
    b'"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
)
CAPTURES = Path(__file__).resolve().parents[3] / "shared" / "captures"


def capture_bytes(name: str) -> bytes:
    """A capture by ``route/name`` (without .sse), from ../shared/captures."""
    path = CAPTURES / f"{name}.sse"
    if not path.is_file():  # CI may lay shared/ elsewhere (tests/conftest.py)
        import os

        path = Path(os.environ.get("PLAYGROUND_CAPTURES", "../shared/captures")) / f"{name}.sse"
    return path.read_bytes()


def decode(data: bytes, chunk: int = 0, route: str = "auto") -> StreamDecoder:
    decoder = StreamDecoder(route)
    step = chunk or len(data) or 1
    for i in range(0, len(data), step):
        decoder.feed(data[i : i + step], i / 100000)
    decoder.finish(1.0)
    return decoder


def append_text(buffer: TextBuffer, pieces: list[str], first_item: int = 0) -> None:
    for n, piece in enumerate(pieces):
        buffer.append(piece, first_item + n)


def chat_state(*pieces: str) -> StreamState:
    state = StreamState(route="chat")
    append_text(state.choice(0).text, list(pieces))
    return state


def png_bytes(width: int, height: int, fmt: str = "PNG") -> bytes:
    from PIL import Image

    img = Image.new("RGBA", (width, height), (200, 40, 40, 255))
    out = io.BytesIO()
    img.save(out, fmt)
    return out.getvalue()


def sine_pcm(seconds: float, rate: int = 24000, freq: float = 440.0) -> bytes:
    n = int(seconds * rate)
    return b"".join(
        struct.pack("<h", int(12000 * math.sin(2 * math.pi * freq * i / rate))) for i in range(n)
    )


def sse(*events: tuple[str | None, str]) -> bytes:
    """SSE bytes from (event name or None, data) pairs."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {data}\n\n")
    return "".join(out).encode()
