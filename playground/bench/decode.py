"""Our whole decode (framing, JSON, route decoder, state) against the openai SDK's path."""

from __future__ import annotations

import json
from functools import partial

from playground.bench.streams import chat_stream, chat_tokens, fixed_chunks
from playground.bench.timing import best_of


def run_ours(chunks: list[bytes]) -> tuple[int, str]:
    """Our pipeline as the window drives it: ``StreamDecoder.feed`` per chunk, then ``finish``."""
    from playground.protocol.stream import StreamDecoder

    decoder = StreamDecoder("chat")
    decoder.set_content_type("text/event-stream")
    feed = decoder.feed
    for i, chunk in enumerate(chunks):
        feed(chunk, i * 1e-3)
    decoder.finish(len(chunks) * 1e-3)
    choice = decoder.state.choices[0]
    return decoder.state.events, choice.text.value


def run_openai(chunks: list[bytes]) -> tuple[int, str]:
    """The openai SDK's ``Stream`` path without model construction: its ``SSEDecoder``, a stop at
    ``[DONE]``, ``json.loads`` of each event's data and the top-level ``error`` check."""
    from openai._streaming import SSEDecoder

    n = 0
    pieces: list[str] = []
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        n += 1
        if sse.data.startswith("[DONE]"):
            break
        data = json.loads(sse.data)
        if isinstance(data, dict) and data.get("error"):
            raise RuntimeError("error event")
        # What a caller does next with the dict (the SDK would build a model here).
        content = data["choices"][0]["delta"].get("content")
        if content:
            pieces.append(content)
    return n, "".join(pieces)


def decode_figures(n_events: int, repeat: int) -> dict[str, float]:
    """``decode_vs_openai_sdk``: our events per second over the SDK path's, 4 KiB chunks."""
    data = chat_stream(n_events)
    chunks = fixed_chunks(data, 4096)
    expected = "".join(chat_tokens(n_events))
    warm = fixed_chunks(chat_stream(20), 4096)
    run_ours(warm)  # imports and first-call costs stay out of the timing
    run_openai(warm)
    best: dict[str, float] = {}
    for _ in range(repeat):
        for name, fn in (("ours", run_ours), ("openai", run_openai)):
            seconds, (events, text) = best_of(partial(fn, chunks), 1)
            if text != expected:
                raise RuntimeError(f"{name} decoded the wrong text")
            if events != n_events + 1:
                raise RuntimeError(f"{name} saw {events} events, expected {n_events + 1}")
            best[name] = min(best.get(name, float("inf")), seconds)
    events_per_s = {name: (n_events + 1) / s for name, s in best.items()}
    return {
        "decode_events_s": events_per_s["ours"],
        "openai_sdk_events_s": events_per_s["openai"],
        "decode_vs_openai_sdk": best["openai"] / best["ours"],
    }
