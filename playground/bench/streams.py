"""Synthetic byte streams and chunkings shared by the benchmarks (deterministic, seeded)."""

from __future__ import annotations

import json
import random

# Tokens roughly as a chat model emits them, a few multibyte ones so UTF-8 decoding is exercised.
_TOKENS = [
    "Hello",
    " world",
    ",",
    " the",
    " stream",
    " of",
    " tokens",
    " é",
    " naïve",
    " 😀",
    "\n",
    " café",
    " 3",
    ".",
    " 14",
    " is",
    " π",
    " —",
    " done",
    " and",
]


def chat_chunk(index: int, content: str) -> dict[str, object]:
    """One OpenAI chat-completions chunk (docs/protocol.md §2), shaped like the recorded ones."""
    return {
        "id": "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL",
        "object": "chat.completion.chunk",
        "created": 1727346168,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_5050236cbd",
        "choices": [
            {"index": 0, "delta": {"content": content}, "logprobs": None, "finish_reason": None}
        ],
    }


def chat_tokens(n_events: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(_TOKENS) for _ in range(n_events)]


def chat_stream(n_events: int, seed: int = 7) -> bytes:
    """``n_events`` chat chunks as SSE (``data: {...}`` + blank line), then ``data: [DONE]``."""
    # Built from one encoded template per distinct token: a million events in about a second.
    cache: dict[str, bytes] = {}
    parts: list[bytes] = []
    for i, tok in enumerate(chat_tokens(n_events, seed)):
        event = cache.get(tok)
        if event is None:
            body = json.dumps(chat_chunk(i, tok), separators=(",", ":"), ensure_ascii=False)
            event = cache[tok] = b"data: " + body.encode() + b"\n\n"
        parts.append(event)
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


def fixed_chunks(data: bytes, size: int) -> list[bytes]:
    """``data`` cut into pieces of ``size`` bytes (4 KiB: a socket read under load)."""
    return [data[i : i + size] for i in range(0, len(data), size)]


def random_chunks(data: bytes, low: int, high: int, seed: int = 11) -> list[bytes]:
    """``data`` cut into pieces of ``low``..``high`` bytes, as tokens arrive over a real network."""
    rng = random.Random(seed)
    out: list[bytes] = []
    pos = 0
    while pos < len(data):
        step = rng.randint(low, high)
        out.append(data[pos : pos + step])
        pos += step
    return out
