"""Gaps the simulator's faults showed: binary junk, chat out of order, music's SSE progress."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from protocol_helpers import decode, sse

from playground.protocol.stream import StreamDecoder
from playground.sim.server import SimServer

CHAT = {"model": "sim-chat", "messages": [{"role": "user", "content": "hi"}], "stream": True}
MUSIC = {"model": "sim-music", "prompt": "rain", "stream": True, "duration_seconds": 2}


@pytest.fixture(scope="module")
def sim() -> Iterator[SimServer]:
    with SimServer(port=0) as server:
        yield server


def run(
    sim: SimServer, path: str, body: dict[str, Any], fault: str = "none", pace: str = "instant"
) -> tuple[StreamDecoder, bytes]:
    """POST to the simulator and decode the answer as the window does, chunk by chunk."""
    decoder = StreamDecoder()
    raw = bytearray()
    headers = {"X-Sim-Fault": fault, "X-Sim-Pace": pace, "Authorization": "Bearer sk-test"}
    url = sim.base_url + path
    with (
        httpx.Client(timeout=30) as client,
        client.stream("POST", url, json=body, headers=headers) as response,
    ):
        assert response.status_code == 200
        decoder.set_content_type(response.headers.get("content-type"))
        t = 0.0
        for chunk in response.iter_raw():
            raw += chunk
            decoder.feed(chunk, t)
            t += 0.001
    decoder.finish(t)
    return decoder, bytes(raw)


# The chunk that ends choice 0 (seed: "The last content chunk carries finish_reason").
STOP = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'


def codes(decoder: StreamDecoder) -> list[str]:
    return [f.code for f in decoder.state.findings]


# -- garbage: a line of invalid UTF-8 ----------------------------------------------------------


def test_garbage_line_is_an_invalid_utf8_finding_at_the_next_event(sim: SimServer) -> None:
    clean, _ = run(sim, "/chat/completions", CHAT)
    decoder, raw = run(sim, "/chat/completions", CHAT, "garbage")
    assert codes(clean) == []
    assert codes(decoder) == ["invalid_utf8"]
    finding = decoder.state.findings[0]
    assert finding.severity == "warning"
    assert finding.item is not None
    item = decoder.items[finding.item]
    junk = raw.index(b"\x80\x81\x82")
    # The junk line sits in the gap before that event (the SSE parser ignored it).
    assert decoder.items[finding.item - 1].end <= junk < item.start
    assert decoder.findings_for(finding.item) == [finding]
    # The answer is untouched, and the stream still ends properly.
    assert decoder.state.text == clean.state.text
    assert decoder.state.status == "complete"


def test_invalid_utf8_inside_an_event_is_tied_to_it_whatever_the_chunking() -> None:
    good = sse('{"choices":[{"index":0,"delta":{"content":"caf\u00e9 \U0001f600"}}]}')
    bad = b'data: {"choices":[{"index":0,"delta":{"content":"x\xff\xfe"}}]}\n\n'
    data = good + bad + good + sse(STOP, "[DONE]")
    whole = decode(data)
    assert [(f.code, f.item) for f in whole.state.findings] == [("invalid_utf8", 1)]
    assert "in this event" in whole.state.findings[0].message
    for cuts in (list(range(1, len(data))), [len(good) + 51, len(good) + 52]):
        split = decode(data, cuts=cuts)
        assert [(f.code, f.item) for f in split.state.findings] == [("invalid_utf8", 1)]
        assert split.state.text == whole.state.text


def test_multibyte_characters_cut_by_chunks_are_not_invalid() -> None:
    data = sse(
        '{"choices":[{"index":0,"delta":{"content":"\u00e9\u20ac\U0001f600"}}]}', STOP, "[DONE]"
    )
    decoder = decode(data, cuts=list(range(1, len(data))))
    assert codes(decoder) == []
    assert decoder.state.text == "\u00e9\u20ac\U0001f600"


def test_a_body_ending_inside_a_utf8_sequence_is_reported() -> None:
    data = sse('{"choices":[{"index":0,"delta":{"content":"a"}}]}') + b": \xe2\x82"
    decoder = decode(data)
    assert "invalid_utf8" in codes(decoder)


# -- out-of-order: the role after the first content ----------------------------------------------


def test_chat_out_of_order_role_is_reported(sim: SimServer) -> None:
    clean, _ = run(sim, "/chat/completions", CHAT)
    decoder, _ = run(sim, "/chat/completions", CHAT, "out-of-order")
    assert codes(decoder) == ["out_of_order"]
    finding = decoder.state.findings[0]
    assert finding.severity == "warning" and "role" in finding.message
    assert finding.item is not None
    assert b'"role":"assistant"' in decoder.items[finding.item].raw
    assert decoder.state.text == clean.state.text
    assert decoder.state.status == "complete"


def test_chat_delta_after_its_finish_reason_is_reported() -> None:
    data = sse(
        '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
        '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}',
        '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        '{"choices":[{"index":0,"delta":{"content":" late"}}]}',
        '{"choices":[{"index":0,"delta":{}}],"usage":{"prompt_tokens":1}}',
        "[DONE]",
    )
    decoder = decode(data)
    assert [(f.code, f.item) for f in decoder.state.findings] == [("out_of_order", 3)]
    assert "finish_reason" in decoder.state.findings[0].message
    assert decoder.state.text == "Hi late"  # reported, still shown


def test_role_first_then_content_is_in_order() -> None:
    data = sse(
        '{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
        '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}',
        '{"choices":[{"index":0,"delta":{"role":"assistant"}}]}',  # a restated role, but late
        STOP,
        "[DONE]",
    )
    assert codes(decode(data)) == ["out_of_order"]
    assert codes(decode(data.replace(b'"content":"Hi"', b'"content":""'))) == []


# -- music: the job's SSE progress ---------------------------------------------------------------


def test_music_progress_stream_fills_job_and_progress(sim: SimServer) -> None:
    decoder, _ = run(sim, "/music", MUSIC, pace="fast")
    state = decoder.state
    assert decoder.route == state.route == "music"
    assert codes(decoder) == []
    assert state.status == "complete"
    assert state.job_status == "completed" and state.progress == 1.0
    assert state.job is not None and state.job["object"] == "music.job"
    assert state.job["audio_url"] and state.job["stream_url"].endswith("/stream")
    names = [getattr(item, "event", None) for item in decoder.items]
    assert names[0] == "music.job.created" and names[-2] == "music.job.completed"
    assert "music.job.progress" in names  # fast pace: the job renders over a few events


def test_music_progress_is_seen_while_streaming() -> None:
    created = (
        '{"type":"music.job.created",'
        '"job":{"id":"m1","object":"music.job","status":"queued","progress":0.0}}'
    )
    data = sse(
        f"music.job.created|{created}",
        'music.job.progress|{"type":"music.job.progress","id":"m1","progress":0.25}',
    )
    decoder = StreamDecoder()
    decoder.feed(data, 0.0)
    assert decoder.route == "music"
    assert decoder.state.job is not None and decoder.state.job["id"] == "m1"
    assert decoder.state.progress == 0.25 and decoder.state.job_status == "queued"
    decoder.feed(sse('music.job.progress|{"type":"music.job.progress","progress":0.1}'), 0.1)
    assert codes(decoder) == ["out_of_order"]  # progress went back
    decoder.finish(0.2)
    assert decoder.state.status == "truncated"


def test_music_midstream_error_fails_the_run(sim: SimServer) -> None:
    decoder, _ = run(sim, "/music", MUSIC, "midstream-error", pace="fast")
    assert decoder.state.status == "failed"
    assert decoder.state.error is not None
    assert "error_mid_stream" in codes(decoder)


def test_music_job_body_is_read_as_a_whole_answer(sim: SimServer) -> None:
    decoder, _ = run(sim, "/music", {**MUSIC, "stream": False})
    assert decoder.route == "music"
    assert decoder.state.job is not None and decoder.state.job["object"] == "music.job"
    assert decoder.state.status == "complete"
