"""Mutated captures (bytes flipped, cut, repeated; JSON values swapped for other types) never raise
and never hit a decoder bug: every odd shape is a finding, the status is one of the five words."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from protocol_helpers import CAPTURES, all_captures

from playground.protocol.sse import SSEEvent, parse_all
from playground.protocol.state import STATUSES
from playground.protocol.stream import StreamDecoder
from playground.protocol.summary import event_type, summarize

ROUTES = ["auto", "chat", "responses", "messages", "images", "speech", "transcription", "music"]
VALUES: list[Any] = [None, 0, -1, 1.5, "", "x", [], {}, [None], {"a": None}, True, "AAAA", [1, "a"]]


def _events() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for path in all_captures(CAPTURES):
        for item in parse_all(path.read_bytes()):
            if isinstance(item, SSEEvent) and item.data != "[DONE]":
                out.append((item.event, json.loads(item.data)))
    return out


def _mutate(rng: random.Random, value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, inner in value.items():
            roll = rng.random()
            if roll < 0.15:
                out[key] = rng.choice(VALUES)
            elif roll >= 0.2:
                out[key] = _mutate(rng, inner)
        return out
    if isinstance(value, list):
        return [_mutate(rng, inner) for inner in value if rng.random() > 0.1]
    return value


def _check(decoder: StreamDecoder) -> None:
    for item in decoder.items:
        payload = decoder.payload(item.index)
        assert isinstance(event_type(item, payload), str)
        assert isinstance(summarize(item, payload), str)
    state = decoder.state
    assert state.status in STATUSES
    assert [f.message for f in state.findings if f.code == "decoder_error"] == []
    _ = (state.text, state.reasoning, [c.valid_json for c in state.tool_calls])


@pytest.mark.parametrize("seed", range(4))
def test_json_shapes_swapped(seed: int) -> None:
    rng = random.Random(seed)
    events = _events()
    for _ in range(150):
        start = rng.randrange(len(events))
        body = b"".join(
            (f"event: {name}\n" if name != "message" else "").encode()
            + b"data: "
            + json.dumps(_mutate(rng, payload)).encode()
            + b"\n\n"
            for name, payload in events[start : start + rng.randint(1, 30)]
        )
        decoder = StreamDecoder(rng.choice(ROUTES))
        decoder.feed(body, 0.0)
        decoder.finish(0.0)
        _check(decoder)


@pytest.mark.parametrize("seed", range(4))
def test_bytes_flipped_cut_repeated(seed: int) -> None:
    rng = random.Random(seed)
    files = [p.read_bytes()[:20000] for p in all_captures(CAPTURES)]
    for _ in range(100):
        data = bytearray(rng.choice(files))
        for _ in range(rng.randint(1, 20)):
            at = rng.randrange(len(data)) if data else 0
            roll = rng.random()
            if roll < 0.4 and data:
                data[at] = rng.randrange(256)
            elif roll < 0.7:
                del data[at : at + rng.randint(1, 50)]
            else:
                data[at:at] = data[at : at + rng.randint(1, 200)]
        decoder = StreamDecoder(rng.choice(ROUTES))
        step = rng.randint(1, 5000)
        for start in range(0, len(data), step):
            decoder.feed(bytes(data[start : start + step]), 0.0)
        decoder.finish(0.0)
        _check(decoder)
