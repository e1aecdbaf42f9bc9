"""Small raw-HTTP helpers for the simulator tests: read a stream with arrival times."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from .conftest import INSTANT

CHAT = {"model": "sim-chat", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
RESPONSES = {"model": "sim-chat", "stream": True, "input": "Hi"}
MESSAGES = {
    "model": "sim-chat",
    "stream": True,
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "Hi"}],
}
IMAGES = {
    "model": "sim-image",
    "stream": True,
    "prompt": "a hill",
    "partial_images": 2,
    "size": "64x64",
}
SPEECH = {
    "model": "sim-tts",
    "input": "Hi there, friend.",
    "voice": "alloy",
    "stream_format": "sse",
}
BODIES: dict[str, dict[str, Any]] = {
    "/chat/completions": CHAT,
    "/responses": RESPONSES,
    "/messages": MESSAGES,
    "/images/generations": IMAGES,
    "/audio/speech": SPEECH,
}


def stream(
    base_url: str, path: str, body: dict[str, Any] | None = None, /, **headers: str
) -> tuple[httpx.Response, list[tuple[float, bytes]]]:
    """POST and collect (seconds since the request, chunk) for each raw body chunk."""
    start = time.monotonic()
    chunks: list[tuple[float, bytes]] = []
    with httpx.stream(
        "POST", base_url + path, json=body or BODIES[path], headers=INSTANT | headers, timeout=30
    ) as r:
        for chunk in r.iter_raw():
            chunks.append((time.monotonic() - start, chunk))
    return r, chunks


def events(raw: bytes) -> list[tuple[str | None, str]]:
    """(event name, data) per SSE event; a tiny reader for tests (comments skipped)."""
    out = []
    for block in raw.decode("utf-8", "replace").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        if data:
            out.append((name, "\n".join(data)))
    return out


def payloads(raw: bytes) -> list[Any]:
    out = []
    for _, data in events(raw):
        try:
            out.append(json.loads(data))
        except ValueError:
            out.append(data)
    return out
