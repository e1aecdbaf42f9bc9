"""Timing figures against a stream built with known arrival times."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.sse import SSEItem, SSEParser
from playground.protocol.state import ImageState, StreamState, ToolCallState
from playground.protocol.timing import (
    Timing,
    compute_timing,
    gap_histogram,
    normalize_usage,
)


def chunk(delta: dict[str, Any], **extra: Any) -> bytes:
    body = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta}],
    }
    body.update(extra)
    return b"data: " + json.dumps(body).encode() + b"\n\n"


USAGE = {
    "prompt_tokens": 5,
    "completion_tokens": 9,
    "total_tokens": 14,
    "completion_tokens_details": {"reasoning_tokens": 2},
}

# (arrival time, bytes): eleven timeline items, two of them sharing the chunk at 0.5 s, a comment,
# and two seconds of silence before "!" (the dead air).
CHUNKS: list[tuple[float, bytes]] = [
    (0.1, chunk({"role": "assistant"})),  # 0
    (0.2, chunk({"reasoning": "Let"})),  # 1
    (0.3, chunk({"reasoning": " me"})),  # 2
    (0.5, chunk({"content": "Hel"}) + chunk({"content": "lo"})),  # 3, 4
    (0.6, b": OPENROUTER PROCESSING\n\n"),  # 5
    (2.6, chunk({"content": "!"})),  # 6
    (
        2.7,
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "t1", "function": {"name": "f", "arguments": '{"a":'}}
                ]
            }
        ),
    ),  # 7
    (2.8, chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]})),  # 8
    (2.9, chunk({}, usage=USAGE)),  # 9
    (3.0, b"data: [DONE]\n\n"),  # 10
]
TIMES = [0.1, 0.2, 0.3, 0.5, 0.5, 0.6, 2.6, 2.7, 2.8, 2.9, 3.0]


def parse(chunks: list[tuple[float, bytes]]) -> list[SSEItem]:
    parser = SSEParser()
    items: list[SSEItem] = []
    for t, data in chunks:
        items.extend(parser.feed(data, t))
    items.extend(parser.finish(3.05))
    return items


def hand_state() -> StreamState:
    """The state a chat decoder folds from CHUNKS, with the provenance it records."""
    state = StreamState(route="chat")
    choice = state.choice(0)
    choice.reasoning.append("Let", 1)
    choice.reasoning.append(" me", 2)
    choice.text.append("Hel", 3)
    choice.text.append("lo", 4)
    choice.text.append("!", 6)
    call = ToolCallState(key=0, id="t1", name="f")
    call.arguments.append('{"a":', 7)
    call.arguments.append("1}", 8)
    state.tool_calls.append(call)
    state.usage = dict(USAGE)
    state.status = "complete"
    return state


@pytest.fixture
def timing() -> Timing:
    items = parse(CHUNKS)
    assert [it.t_last for it in items] == TIMES
    return compute_timing((items, hand_state()), t_headers=0.05, t_first_byte=0.1, t_end=3.05)


def test_milestones(timing: Timing) -> None:
    assert timing.t_headers == 0.05
    assert timing.t_first_byte == 0.1
    assert timing.t_first_event == 0.1
    assert timing.t_first_reasoning == 0.2
    assert timing.t_first_text == 0.5
    assert timing.t_first_tool_args == 2.7
    assert timing.t_first_image is None
    assert timing.t_first_audio is None
    assert timing.t_last_event == 3.0
    assert timing.duration == 3.05
    keys = [(m.key, m.t, m.item) for m in timing.milestones]
    assert keys == [
        ("headers", 0.05, None),
        ("first_byte", 0.1, None),
        ("first_event", 0.1, 0),
        ("first_reasoning", 0.2, 1),
        ("first_text", 0.5, 3),
        ("first_tool_args", 2.7, 7),
        ("end", 3.05, None),
    ]


def test_item_channels(timing: Timing) -> None:
    assert timing.times == TIMES
    assert timing.kinds == [
        "meta",
        "reasoning",
        "reasoning",
        "text",
        "text",
        "comment",
        "text",
        "tool_args",
        "tool_args",
        "meta",
        "meta",
    ]
    assert timing.sizes[10] == len(b"data: [DONE]\n\n")


def test_gaps_and_dead_air(timing: Timing) -> None:
    expected = [b - a for a, b in itertools.pairwise(TIMES)]
    assert timing.gaps == expected
    assert timing.median_gap == pytest.approx(0.1)
    # max(250 ms, 5 x 100 ms) = 500 ms: only the two seconds before "!" are dead air.
    assert timing.dead_air_threshold == pytest.approx(0.5)
    assert [(g.after, g.before) for g in timing.dead_air] == [(5, 6)]
    assert timing.dead_air[0].seconds == pytest.approx(2.0)
    assert timing.dead_air_total == pytest.approx(2.0)
    longest = timing.longest_gap
    assert longest is not None and (longest.after, longest.before) == (5, 6)


def test_histogram_is_log_spaced(timing: Timing) -> None:
    bins = [(b.lo, b.hi, b.count) for b in timing.histogram]
    lo, hi, count = bins[0]
    assert (lo, count) == (0.0, 1) and hi == pytest.approx(0.1)  # the two events sharing a chunk
    assert [c for _, _, c in bins[1:]] == [8, 0, 1]
    assert [lo for lo, _, _ in bins[1:]] == pytest.approx([0.1, 10**-0.5, 1.0])
    assert sum(b.count for b in timing.histogram) == len(timing.gaps)


def test_channels_rates_and_usage(timing: Timing) -> None:
    text = timing.channels["text"]
    assert (text.deltas, text.chars, text.t_first, text.t_last) == (3, 6, 0.5, 2.6)
    # Usage reports 7 non-reasoning tokens shared by text and tool args: no split, so count.
    assert text.tokens_source == "deltas"
    assert text.tokens_per_second == pytest.approx(3 / 2.1)
    reasoning = timing.channels["reasoning"]
    assert reasoning.tokens_reported == 2 and reasoning.tokens_source == "usage"
    assert reasoning.tokens_per_second == pytest.approx(2 / 0.1)
    args = timing.channels["tool_args"]
    assert (args.deltas, args.chars) == (2, 7)
    assert args.tokens_per_second == pytest.approx(2 / 0.1)
    assert timing.usage_reported == {
        "input": 5,
        "output": 9,
        "reasoning": 2,
        "total": 14,
    }
    assert timing.counted == {
        "events": 10,
        "comments": 1,
        "text_deltas": 3,
        "text_chars": 6,
        "reasoning_deltas": 2,
        "reasoning_chars": 6,
        "refusal_deltas": 0,
        "refusal_chars": 0,
        "tool_args_deltas": 2,
        "tool_args_chars": 7,
        "images": 0,
        "audio_chunks": 0,
        "audio_bytes": 0,
        "output_deltas": 7,
    }
    json.dumps(timing.as_json())  # the bundle writes it


def test_usage_attributed_to_the_only_visible_channel() -> None:
    items = parse(CHUNKS[:6] + CHUNKS[9:])
    state = StreamState()
    state.choice(0).text.append("Hel", 3)
    state.choice(0).text.append("lo", 4)
    state.usage = {"input_tokens": 3, "output_tokens": 4}  # Messages/Responses shape
    streaming = compute_timing((items, state)).channels["text"]
    assert streaming.tokens_reported is None  # mid-stream a usage is not the final count
    state.status = "complete"
    timing = compute_timing((items, state))
    text = timing.channels["text"]
    assert text.tokens_reported == 4 and text.tokens_source == "usage"
    assert text.tokens_per_second is None  # both deltas arrived in one chunk: no span
    assert timing.t_first_byte == 0.1  # from the first item when the transport gave none
    assert timing.usage_reported == {"input": 3, "output": 4, "total": 7}


def test_images_audio_and_errors() -> None:
    body = (
        b"event: image_generation.partial_image\ndata: {}\n\n",
        b"event: image_generation.completed\ndata: {}\n\n",
        b'event: error\ndata: {"type":"error","error":{"message":"Overloaded"}}\n\n',
        b'data: {"error":{"message":"x"}}\n\n',
        b"data: {}\n\n",
        b"data: {}\n\n",
        b"data: {\n",  # no blank line: left unterminated at EOF
    )
    items = parse([(0.25 * (i + 1), b) for i, b in enumerate(body)])
    assert len(items) == 7
    state = StreamState(route="images")
    state.images.append(ImageState(0, False, "png", b"", 1, 1, item=0, t=0.25))
    state.images.append(ImageState(None, True, "png", b"", 1, 1, item=1, t=0.5))
    from playground.protocol.state import AudioState

    state.audio = AudioState(format="pcm")
    state.audio.data.extend(b"\0" * 48000)
    state.audio.origins.extend([(0, 4), (24000, 5)])
    timing = compute_timing((items, state))
    assert timing.kinds == ["image", "image", "error", "error", "audio", "audio", "error"]
    assert timing.t_first_image == 0.25 and timing.t_first_partial_image == 0.25
    assert timing.t_first_audio == 1.25
    labels = {m.key: m.label for m in timing.milestones}
    assert labels["first_image"] == "first partial image"
    audio = timing.channels["audio"]
    assert (audio.deltas, audio.chars) == (2, 48000)
    assert timing.counted["audio_bytes"] == 48000 and timing.counted["images"] == 2


def test_empty_run() -> None:
    timing = compute_timing(([], StreamState()))
    assert timing.times == [] and timing.gaps == [] and timing.histogram == []
    assert timing.milestones == [] and timing.duration == 0.0
    assert timing.median_gap is None and timing.dead_air == []


def test_gap_histogram_edges() -> None:
    assert gap_histogram([]) == []
    assert [(b.lo, b.hi, b.count) for b in gap_histogram([0.0, 0.0])] == [(0.0, 0.0, 2)]
    bins = gap_histogram([0.001, 0.002, 0.5, 5.0])
    assert bins[0].lo == pytest.approx(0.001)
    assert all(math.isclose(b.hi / b.lo, 10**0.5) for b in bins)
    assert [b.count for b in bins] == [
        2,
        0,
        0,
        0,
        0,
        1,
        0,
        1,
    ]  # 1-3.2 ms, ..., 0.32-1 s, ..., 3.2-10 s


def test_normalize_usage_shapes() -> None:
    assert normalize_usage(None) == {}
    assert normalize_usage(
        {"input_tokens": 10, "cache_read_input_tokens": 4, "output_tokens": 2}
    ) == {
        "input": 10,
        "output": 2,
        "cached": 4,
        "total": 12,
    }
    assert normalize_usage(
        {
            "input_tokens": 1,
            "output_tokens": 5,
            "total_tokens": 6,
            "output_tokens_details": {"reasoning_tokens": 3},
            "input_tokens_details": {"cached_tokens": 0},
        }
    ) == {"input": 1, "output": 5, "reasoning": 3, "cached": 0, "total": 6}
    assert normalize_usage({"prompt_tokens": True, "completion_tokens": "7"}) == {}


def test_with_the_real_decoder() -> None:
    """The same chunks through the protocol engineer's decoder give the same figures."""
    stream = pytest.importorskip("playground.protocol.stream")
    decoder = stream.StreamDecoder("chat")
    decoder.set_content_type("text/event-stream")
    for t, data in CHUNKS:
        decoder.feed(data, t)
    decoder.finish(3.05)
    timing = compute_timing(decoder, t_headers=0.05, t_first_byte=0.1, t_end=3.05)
    assert timing.t_first_reasoning == 0.2
    assert timing.t_first_text == 0.5
    assert timing.t_first_tool_args == 2.7
    assert timing.channels["text"].deltas == 3
    assert timing.channels["reasoning"].tokens_reported == 2
    assert [(g.after, g.before) for g in timing.dead_air] == [(5, 6)]
    assert timing.kinds[5] == "comment" and timing.kinds[3] == "text"
    assert timing.counted["events"] == 10 and timing.counted["comments"] == 1


def test_every_shared_capture_gives_consistent_figures(captures_dir: Path) -> None:
    """Real streams fed in 512-byte pieces 10 ms apart: nothing raises, the figures add up."""
    from playground.protocol.capture import read_capture
    from playground.protocol.stream import StreamDecoder

    files = sorted(p for p in captures_dir.rglob("*") if p.suffix in (".sse", ".jsonl", ".txt"))
    assert len(files) >= 30
    for path in files:
        capture = read_capture(path)
        data = b"".join(chunk for _t, chunk in capture.chunks)
        decoder = StreamDecoder(capture.route or "auto")
        decoder.set_content_type(capture.content_type or "text/event-stream")
        t = 0.0
        for i in range(0, len(data), 512):
            t = 0.01 * (i // 512 + 1)
            decoder.feed(data[i : i + 512], t)
        decoder.finish(t + 0.01)
        timing = compute_timing(decoder, 0.005, 0.01, t_end=t + 0.01)
        n = len(decoder.items)
        assert len(timing.times) == len(timing.kinds) == len(timing.sizes) == n, path
        assert sum(b.count for b in timing.histogram) == len(timing.gaps) == max(n - 1, 0)
        assert all(g.seconds > timing.dead_air_threshold for g in timing.dead_air)
        assert timing.times == sorted(timing.times)
        state = decoder.state
        text = timing.channels.get("text")
        assert (text.chars if text else 0) == sum(len(c.text) for c in state.choices.values())
        if state.text and state.done_text is None:
            assert timing.t_first_text is not None and timing.t_first_text <= timing.duration
        assert [m.t for m in timing.milestones] == sorted(m.t for m in timing.milestones)
        json.dumps(timing.as_json())
