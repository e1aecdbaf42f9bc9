"""Statuses follow each route's own grammar, not ``data: [DONE]`` (PROTOCOL.md §0), from bytes.

Third-party servers end Messages and Responses streams with ``[DONE]`` (LiteLLM, mockllm); the
seeds say Messages ends with ``message_stop``, Responses "with one of three final events or with
an error event" and "there is no [DONE]", and on chat "the last content chunk carries
finish_reason". Each case: the exact status and the exact findings (severity, code, item).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import decode, sse

from playground.protocol.stream import StreamDecoder

# What mockllm (PyPI, stacklok/mockllm providers/anthropic.py) sends on /v1/messages: data-only
# `message_delta` events wrapping a content_block_delta, then `data: [DONE]`; no message_start,
# no block events, no message_stop.
MOCKLLM_MESSAGES = (
    b'data: {"type":"message_delta","id":"mock-1","delta":{"type":"content_block_delta",'
    b'"index":0,"delta":{"text":"Hello"}},"usage":null}\n\n'
    b'data: {"type":"message_delta","id":"mock-2","delta":{"type":"content_block_delta",'
    b'"index":0,"delta":{"text":" world"}},"usage":null}\n\n'
    b"data: [DONE]\n\n"
)


def _found(decoder: StreamDecoder) -> list[tuple[str, str, int | None]]:
    return [(f.severity, f.code, f.item) for f in decoder.state.findings]


def _named(kind: str, **fields: Any) -> str:
    return f"{kind}|" + json.dumps({"type": kind, **fields})


MESSAGES_UNTIL_DELTA = [
    _named("message_start", message={"usage": {"input_tokens": 3, "output_tokens": 0}}),
    _named("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    _named("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"}),
    _named("content_block_stop", index=0),
    _named("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 1}),
]


def _resp(kind: str, seq: int, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "sequence_number": seq, **fields}


RESPONSES_UNTIL_ITEM_DONE = [
    _resp("response.created", 0, response={"status": "in_progress"}),
    _resp("response.output_item.added", 1, output_index=0, item={"id": "m", "type": "message"}),
    _resp(
        "response.output_text.delta", 2, item_id="m", output_index=0, content_index=0, delta="Hi"
    ),
    _resp("response.output_item.done", 3, output_index=0, item={"id": "m", "type": "message"}),
]
COMPLETED = _resp("response.completed", 4, response={"status": "completed", "usage": {"x": 1}})


def _named_responses(events: list[dict[str, Any]]) -> list[str]:
    return [f"{e['type']}|{json.dumps(e)}" for e in events]


# -- messages --------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["auto", "messages"])
def test_mockllm_messages_stream_is_truncated_with_findings(route: str) -> None:
    decoder = decode(MOCKLLM_MESSAGES, route)
    assert (decoder.route, decoder.state.status, decoder.state.text) == (
        "messages",
        "truncated",
        "",
    )
    assert _found(decoder) == [
        ("warning", "event_line_required", 0),  # the Anthropic SDK drops data-only events (§1)
        ("warning", "out_of_order", 0),  # it does not open with message_start
        ("warning", "unexpected_shape", 0),  # message_delta.delta is a content_block_delta
        ("info", "unexpected_done", 2),
        ("warning", "no_terminator", 2),
    ]
    assert "message_stop never came" in decoder.state.findings[-1].message


def test_messages_cut_before_message_stop_stays_truncated_despite_done() -> None:
    decoder = decode(sse(*MESSAGES_UNTIL_DELTA, "[DONE]"))
    state = decoder.state
    assert (state.status, state.text, state.finish) == ("truncated", "Hi", "end_turn")
    assert _found(decoder) == [("info", "unexpected_done", 5), ("warning", "no_terminator", 5)]


def test_messages_with_message_stop_then_done_is_complete_with_an_info() -> None:
    decoder = decode(sse(*MESSAGES_UNTIL_DELTA, _named("message_stop"), "[DONE]"))
    assert decoder.state.status == "complete"
    assert _found(decoder) == [("info", "unexpected_done", 6)]


def test_messages_route_with_events_of_no_grammar_then_done() -> None:
    body = sse('{"type":"greeting","text":"hi"}', '{"type":"farewell"}', "[DONE]")
    decoder = decode(body, "messages")
    assert decoder.state.status == "truncated"
    assert _found(decoder) == [
        ("warning", "event_line_required", 0),
        ("warning", "out_of_order", 0),
        ("info", "unknown_event", 0),
        ("info", "unknown_event", 1),
        ("info", "unexpected_done", 2),
        ("warning", "no_terminator", 2),
    ]


def test_undecided_events_then_done_are_not_silent() -> None:
    decoder = decode(sse('{"type":"greeting"}', "[DONE]"))
    assert decoder.route == "auto"
    assert _found(decoder) == [("info", "unknown_event", 0)]


# -- responses -------------------------------------------------------------------------------


def test_responses_without_final_event_stays_truncated_despite_done() -> None:
    decoder = decode(sse(*_named_responses(RESPONSES_UNTIL_ITEM_DONE), "[DONE]"))
    state = decoder.state
    assert (decoder.route, state.status, state.text) == ("responses", "truncated", "Hi")
    assert _found(decoder) == [("info", "unexpected_done", 4), ("warning", "no_terminator", 4)]
    assert "response.completed" in state.findings[-1].message


def test_responses_without_event_lines_litellm_style() -> None:
    # LiteLLM: data-only Responses events, then [DONE]. Both are info findings; it is complete.
    events = [json.dumps(e) for e in [*RESPONSES_UNTIL_ITEM_DONE, COMPLETED]]
    decoder = decode(sse(*events, "[DONE]"))
    state = decoder.state
    assert (state.status, state.text, state.finish) == ("complete", "Hi", "response.completed")
    assert _found(decoder) == [("info", "no_event_line", 0), ("info", "unexpected_done", 5)]


def test_responses_with_event_lines_and_no_done_has_no_finding() -> None:
    decoder = decode(sse(*_named_responses([*RESPONSES_UNTIL_ITEM_DONE, COMPLETED])))
    assert (decoder.state.status, _found(decoder)) == ("complete", [])


# -- chat ------------------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})


def test_chat_without_any_finish_reason_is_complete_with_a_warning() -> None:
    decoder = decode(
        sse(_chunk({"role": "assistant", "content": ""}), _chunk({"content": "Hi"}), "[DONE]")
    )
    assert (decoder.state.status, decoder.state.text) == ("complete", "Hi")
    assert _found(decoder) == [("warning", "no_finish_reason", 2)]


def test_chat_with_finish_reason_has_no_warning() -> None:
    decoder = decode(sse(_chunk({"content": "Hi"}), _chunk({}, "stop"), "[DONE]"))
    assert (decoder.state.status, _found(decoder)) == ("complete", [])


def test_chat_route_event_of_no_grammar_is_not_silent() -> None:
    body = sse('{"greeting":"hi"}', _chunk({"content": "Hi"}), _chunk({}, "stop"), "[DONE]")
    decoder = decode(body, "chat")
    assert (decoder.state.status, decoder.state.text) == ("complete", "Hi")
    assert _found(decoder) == [("info", "unknown_event", 0)]


def test_role_null_is_a_null_field_not_a_late_role() -> None:
    body = sse(
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"content": "Hi"}),
        _chunk({"role": None, "content": " there"}),
        _chunk({}, "stop"),
        "[DONE]",
    )
    decoder = decode(body)
    assert (decoder.state.status, decoder.state.text) == ("complete", "Hi there")
    assert _found(decoder) == [("info", "null_in_delta", 2)]


def test_a_real_late_role_is_still_out_of_order() -> None:
    body = sse(
        _chunk({"content": "Hi"}), _chunk({"role": "assistant"}), _chunk({}, "stop"), "[DONE]"
    )
    assert _found(decode(body)) == [("warning", "out_of_order", 1)]


# -- the other routes: their own final event decides ----------------------------------------------


@pytest.mark.parametrize(
    ("route", "events"),
    [
        (
            "images",
            ['{"type":"image_generation.partial_image","b64_json":"","partial_image_index":0}'],
        ),
        ("speech", ['{"type":"speech.audio.delta","audio":"AAAA"}']),
        ("transcription", ['{"type":"transcript.text.delta","delta":"Hi"}']),
    ],
)
def test_done_never_stands_in_for_the_final_event(route: str, events: list[str]) -> None:
    decoder = decode(sse(*events, "[DONE]"), route)
    assert decoder.state.status == "truncated"
    assert _found(decoder) == [("warning", "no_terminator", 1)]


@pytest.mark.parametrize(
    ("route", "final"),
    [
        ("images", '{"type":"image_generation.completed","b64_json":""}'),
        ("speech", '{"type":"speech.audio.done","usage":{"input_tokens":1}}'),
        ("transcription", '{"type":"transcript.text.done","text":"Hi"}'),
    ],
)
def test_done_after_the_final_event_is_how_these_routes_end(route: str, final: str) -> None:
    decoder = decode(sse(final, "[DONE]"), route)
    assert (decoder.state.status, _found(decoder)) == ("complete", [])


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(1, len(MOCKLLM_MESSAGES) - 1), max_size=8, unique=True))
def test_findings_do_not_depend_on_the_chunking(cuts: list[int]) -> None:
    whole = decode(MOCKLLM_MESSAGES)
    split = decode(MOCKLLM_MESSAGES, cuts=sorted(cuts))
    assert _found(split) == _found(whole) and split.state.status == whole.state.status
