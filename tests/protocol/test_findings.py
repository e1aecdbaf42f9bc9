"""Findings: each departure from the grammar gets its stable code on the item that showed it."""

from __future__ import annotations

import json
from typing import Any

from protocol_helpers import decode, sse

from playground.protocol.state import Finding


def _codes(findings: list[Finding]) -> dict[str, list[int | None]]:
    out: dict[str, list[int | None]] = {}
    for f in findings:
        out.setdefault(f.code, []).append(f.item)
    return out


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: object) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})


def test_invalid_json_is_an_error_on_its_item_and_the_stream_goes_on() -> None:
    decoder = decode(sse(_chunk({"content": "a"}), "{not json", _chunk({"content": "b"}), "[DONE]"))
    codes = _codes(decoder.state.findings)
    assert codes["invalid_json"] == [1]
    assert decoder.findings_for(1)[0].severity == "error"
    assert decoder.state.text == "ab"
    assert decoder.payload(1) is None


def test_unknown_event_type_is_info() -> None:
    body = sse(
        'message_start|{"type":"message_start","message":{"usage":{}}}',
        'brand_new|{"type":"brand_new"}',
        'message_stop|{"type":"message_stop"}',
    )
    findings = decode(body).state.findings
    assert [(f.code, f.severity, f.item) for f in findings] == [("unknown_event", "info", 1)]


def test_sequence_gap_and_step_back() -> None:
    def ev(seq: int) -> str:
        return "response.in_progress|" + json.dumps(
            {"type": "response.in_progress", "sequence_number": seq}
        )

    body = sse(
        ev(0),
        ev(1),
        ev(4),
        ev(3),
        'response.completed|{"type":"response.completed","sequence_number":5}',
    )
    codes = _codes(decode(body).state.findings)
    assert codes["sequence_gap"] == [2]
    assert codes["sequence_step_back"] == [3]


def test_delta_before_its_block_started_and_block_never_stopped() -> None:
    body = sse(
        'message_start|{"type":"message_start","message":{}}',
        'content_block_delta|{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}',
        'content_block_start|{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
        'message_stop|{"type":"message_stop"}',
    )
    state = decode(body).state
    codes = _codes(state.findings)
    assert codes["delta_before_start"] == [1]
    assert codes["block_not_stopped"] == [2]
    assert state.text == "x"  # read anyway


def test_responses_delta_before_item_added() -> None:
    body = sse(
        json.dumps(
            {
                "type": "response.output_text.delta",
                "output_index": 0,
                "delta": "x",
                "sequence_number": 0,
            }
        ),
        json.dumps({"type": "response.completed", "response": {}, "sequence_number": 1}),
    )
    assert _codes(decode(body).state.findings)["delta_before_start"] == [0]


def test_chat_tool_arguments_before_id_and_name() -> None:
    tc = {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}
    codes = _codes(decode(sse(_chunk(tc), "[DONE]")).state.findings)
    assert codes["delta_before_start"] == [0]


def test_no_terminator_on_last_item() -> None:
    codes = _codes(decode(sse(_chunk({"content": "a"}), _chunk({"content": "b"}))).state.findings)
    assert codes["no_terminator"] == [1]


def test_usage_not_on_the_last_chunk() -> None:
    body = sse(
        _chunk({"content": "a"}, "stop"),
        json.dumps({"choices": [], "usage": {"prompt_tokens": 1}}),
        json.dumps({"choices": [], "moderation": {}}),
        "[DONE]",
    )
    assert _codes(decode(body).state.findings)["usage_not_last"] == [2]


def test_null_field_in_delta_reported_once_per_field() -> None:
    body = sse(
        _chunk({"content": None, "reasoning_content": "r"}), _chunk({"content": None}), "[DONE]"
    )
    findings = [f for f in decode(body).state.findings if f.code == "null_in_delta"]
    assert [(f.item, "content" in f.message) for f in findings] == [(0, True)]


def test_event_after_terminator() -> None:
    body = sse(_chunk({"content": "a"}), "[DONE]", _chunk({"content": "late"}))
    decoder = decode(body)
    assert _codes(decoder.state.findings)["event_after_terminator"] == [2]
    assert decoder.state.status == "complete"


def test_done_after_a_final_event_is_tolerated() -> None:
    body = sse(
        json.dumps({"type": "transcript.text.done", "text": "hi"}),
        "[DONE]",
    )
    assert decode(body).state.findings == []


def test_error_mid_stream() -> None:
    body = sse(_chunk({"content": "a"}), json.dumps({"error": {"message": "boom"}}), "[DONE]")
    state = decode(body).state
    assert _codes(state.findings)["error_mid_stream"] == [1]
    assert state.status == "failed"


def test_unterminated_event_carries_its_raw_bytes() -> None:
    decoder = decode(sse(_chunk({"content": "a"}), "[DONE]") + b'data: {"partial": tru')
    found = [f for f in decoder.state.findings if f.code == "unterminated_event"]
    assert len(found) == 1 and found[0].item == 2
    assert '{"partial": tru' in found[0].message


def test_json_body_where_a_stream_was_asked_for() -> None:
    from playground.protocol.stream import StreamDecoder

    body = json.dumps(
        {
            "choices": [{"index": 0, "message": {"content": "whole"}, "finish_reason": "stop"}],
            "usage": {"x": 1},
        }
    ).encode()
    decoder = StreamDecoder()
    decoder.set_content_type("application/json")
    decoder.feed(body, 0.1)
    decoder.finish(0.2)
    state = decoder.state
    assert (decoder.route, state.text, state.finish, state.status) == (
        "chat",
        "whole",
        "stop",
        "complete",
    )
    assert _codes(state.findings)["json_body"] == [0]
    assert decoder.payload(0) == json.loads(body)


def test_bad_base64_image_is_a_finding() -> None:
    body = sse(
        json.dumps(
            {
                "type": "image_generation.partial_image",
                "b64_json": "iVBORw0...!!",
                "partial_image_index": 0,
            }
        ),
        json.dumps({"type": "image_generation.completed", "b64_json": ""}),
    )
    state = decode(body).state
    assert _codes(state.findings)["bad_base64"] == [0]
    assert state.images[0].data[:3] == b"\x89PN"


def test_decoder_bug_becomes_a_finding_not_an_exception(monkeypatch: object) -> None:
    from playground.protocol.decoders.chat import ChatDecoder

    def broken(*_: object) -> None:
        raise RuntimeError("kaboom")

    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(ChatDecoder, "decode", broken)
    try:
        decoder = decode(sse(_chunk({"content": "a"}), "[DONE]"))
    finally:
        mp.undo()
    assert _codes(decoder.state.findings)["decoder_error"] == [0]
    assert decoder.state.status == "complete"


def test_garbage_never_raises() -> None:
    import random

    rng = random.Random(7)
    shapes = [
        "[]",
        "1",
        '"s"',
        "null",
        '{"choices": 5}',
        '{"choices": [1, null, {"delta": 3}]}',
        '{"choices": [{"delta": {"content": 5, "tool_calls": [null, {"index": "x"}]}}]}',
        '{"type": "response.output_item.added"}',
        '{"type": "content_block_start", "index": "a"}',
        '{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}}',
        '{"type": "speech.audio.delta", "audio": 5}',
        '{"type": "image_generation.completed", "b64_json": "@@"}',
        '{"error": null}',
        '{"error": 5}',
        '{"type": "error"}',
        '{"usage": [1]}',
    ]
    for route in (
        "auto",
        "chat",
        "responses",
        "messages",
        "images",
        "speech",
        "transcription",
        "music",
    ):
        parts = shapes[:]
        rng.shuffle(parts)
        decoder = decode(sse(*parts), route=route)
        assert decoder.state.status in ("complete", "incomplete", "failed", "truncated")
