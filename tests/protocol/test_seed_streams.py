"""Streams built from the seed pages' own examples (../shared/seeds), every failure row too: the
text routes (chat, responses, messages); the media routes' are in test_seed_streams_media.py."""

from __future__ import annotations

import json

import pytest
from protocol_helpers import decode, sse

USAGE = {"prompt_tokens": 14, "completion_tokens": 7, "total_tokens": 21}


def _chunk(delta: dict[str, object], finish: str | None = None, **extra: object) -> str:
    body: dict[str, object] = {
        "id": "gen-1",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    body.update(extra)
    return json.dumps(body)


# -- Chat: both usage shapes ("Streaming events" vs "Streaming") -------------------------------


def test_chat_usage_chunk_with_empty_choices() -> None:
    # "Streaming events": with include_usage the usage chunk has an empty choices array.
    body = sse(
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"content": "Hello"}),
        _chunk({}, "stop"),
        json.dumps({"id": "gen-1", "choices": [], "usage": USAGE}),
        "[DONE]",
    )
    state = decode(body).state
    assert (state.text, state.finish, state.usage, state.status) == (
        "Hello",
        "stop",
        USAGE,
        "complete",
    )
    assert state.findings == []


def test_chat_usage_chunk_keeping_one_empty_choice() -> None:
    # "Streaming": the last chunk carries usage, its one choice has an empty delta; finish_reason
    # may ride the last content chunk and be repeated.
    usage = {"prompt_tokens": 8, "completion_tokens": 2, "total_tokens": 10}
    body = (
        "data: "
        + json.dumps(
            {"choices": [{"delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
        )
        + "\n\ndata: "
        + json.dumps({"choices": [{"delta": {"content": "hi"}, "finish_reason": None}]})
        + "\n\ndata: "
        + json.dumps({"choices": [{"delta": {"content": " there"}, "finish_reason": "stop"}]})
        + "\n\ndata: "
        + json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": usage})
        + "\n\ndata: [DONE]\n\n"
    ).encode()
    decoder = decode(body)
    assert decoder.route == "chat"
    state = decoder.state
    assert (state.text, state.finish, state.usage, state.status) == (
        "hi there",
        "stop",
        usage,
        "complete",
    )


def test_chat_failure_after_start() -> None:
    # "When a stream fails": a chunk with `error` and finish_reason "error", then [DONE].
    err = {
        "code": 502,
        "message": "Upstream went away",
        "metadata": {"error_type": "provider_unavailable"},
    }
    body = sse(
        _chunk({"role": "assistant", "content": ""}),
        _chunk({"content": "Partial"}),
        _chunk({"content": ""}, "error", error=err),
        "[DONE]",
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.text == "Partial"  # kept and shown as incomplete
    assert state.finish == "error"
    assert state.error is not None
    assert (state.error.message, state.error.code, state.error.type) == (
        "Upstream went away",
        502,
        "provider_unavailable",
    )
    assert "error_mid_stream" in {f.code for f in state.findings}


def test_openrouter_midstream_error_example() -> None:
    # PROTOCOL.md §7, verbatim.
    line = (
        '{"id":"gen-abc123","object":"chat.completion.chunk","created":1234567890,"model":"openai/gpt-4o",'
        '"provider":"OpenAI","error":{"code":429,"message":"Rate limit exceeded","metadata":'
        '{"error_type":"rate_limit_exceeded"}},"choices":[{"index":0,"delta":{"content":""},'
        '"finish_reason":"error"}]}'
    )
    state = decode(sse(_chunk({"content": "a"}), line)).state
    assert state.status == "failed"
    assert state.error is not None and state.error.message == "Rate limit exceeded"
    assert state.error.type == "rate_limit_exceeded"


def test_chat_truncated_without_done() -> None:
    state = decode(sse(_chunk({"content": "Hel"}))).state
    assert state.status == "truncated"
    assert state.text == "Hel"
    assert "no_terminator" in {f.code for f in state.findings}


def test_chat_comment_lines_between_events() -> None:
    body = sse(": OPENROUTER PROCESSING", _chunk({"content": "x"}), ": keep-alive", "[DONE]")
    decoder = decode(body)
    assert decoder.state.comments == 2
    assert decoder.state.text == "x"
    assert decoder.payload(0) is None  # a comment never reaches a JSON decoder


# -- Responses ---------------------------------------------------------------------------------


def _resp(kind: str, seq: int, **fields: object) -> str:
    return f"{kind}|" + json.dumps({"type": kind, "sequence_number": seq, **fields})


def _response_obj(status: str, **extra: object) -> dict[str, object]:
    return {"id": "resp_1", "object": "response", "status": status, "output": [], **extra}


RESP_USAGE = {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}


def _responses_flow(*tail: str) -> bytes:
    return sse(
        _resp("response.created", 0, response=_response_obj("in_progress")),
        _resp(
            "response.output_item.added", 1, output_index=0, item={"type": "message", "id": "msg_1"}
        ),
        _resp(
            "response.output_text.delta",
            2,
            item_id="msg_1",
            output_index=0,
            content_index=0,
            delta="Hi",
        ),
        _resp(
            "response.output_text.delta",
            3,
            item_id="msg_1",
            output_index=0,
            content_index=0,
            delta="!",
        ),
        *tail,
    )


def test_responses_seed_flow_completed() -> None:
    body = _responses_flow(
        _resp(
            "response.output_item.done", 4, output_index=0, item={"type": "message", "id": "msg_1"}
        ),
        _resp("response.completed", 5, response=_response_obj("completed", usage=RESP_USAGE)),
    )
    decoder = decode(body)
    state = decoder.state
    assert decoder.route == "responses"
    assert (state.text, state.finish, state.usage, state.status) == (
        "Hi!",
        "response.completed",
        RESP_USAGE,
        "complete",
    )
    assert state.findings == []


def test_responses_incomplete() -> None:
    body = _responses_flow(
        _resp(
            "response.incomplete",
            4,
            response=_response_obj(
                "incomplete", incomplete_details={"reason": "max_output_tokens"}
            ),
        )
    )
    state = decode(body).state
    assert (state.status, state.finish, state.text) == ("incomplete", "response.incomplete", "Hi!")


def test_responses_failure_error_then_failed() -> None:
    # "When a stream fails": an `error` event, then response.failed.
    body = _responses_flow(
        _resp("error", 4, code="server_error", message="The model crashed", param=None),
        _resp(
            "response.failed",
            5,
            response=_response_obj(
                "failed", error={"code": "server_error", "message": "The model crashed"}
            ),
        ),
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.error is not None and state.error.message == "The model crashed"
    assert state.error.code == "server_error"
    assert state.finish == "response.failed"
    assert "event_after_terminator" not in {f.code for f in state.findings}


def test_responses_nested_error_openrouter() -> None:
    body = _responses_flow(
        _resp("response.error", 4, error={"code": 502, "message": "Provider down"})
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.error is not None and (state.error.message, state.error.code) == (
        "Provider down",
        502,
    )


@pytest.mark.parametrize(
    "name",
    [
        "response.reasoning.delta",
        "response.reasoning_text.delta",
        "response.reasoning_summary_text.delta",
    ],
)
def test_responses_all_three_reasoning_names(name: str) -> None:
    body = sse(
        _resp(
            "response.output_item.added", 0, output_index=0, item={"type": "reasoning", "id": "rs"}
        ),
        _resp(
            name, 1, item_id="rs", output_index=0, content_index=0, summary_index=0, delta="think"
        ),
        _resp("response.completed", 2, response=_response_obj("completed")),
    )
    state = decode(body).state
    assert state.reasoning == "think"


def test_responses_truncated() -> None:
    state = decode(_responses_flow()).state
    assert state.status == "truncated"
    assert state.text == "Hi!"
    codes = {f.code for f in state.findings}
    assert {"no_terminator"} <= codes


# -- Messages ----------------------------------------------------------------------------------


def _msg(kind: str, **fields: object) -> str:
    return f"{kind}|" + json.dumps({"type": kind, **fields})


def _messages_start() -> list[str]:
    return [
        _msg(
            "message_start",
            message={
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        ),
        _msg(
            "content_block_start",
            index=0,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        ),
        _msg("ping"),
        _msg(
            "content_block_delta",
            index=0,
            delta={"type": "thinking_delta", "thinking": "Let me see."},
        ),
        _msg("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "SIG"}),
        _msg("content_block_stop", index=0),
        _msg("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        _msg("content_block_delta", index=1, delta={"type": "text_delta", "text": "Hello"}),
    ]


def test_messages_seed_flow() -> None:
    body = sse(
        *_messages_start(),
        _msg("content_block_stop", index=1),
        _msg(
            "content_block_start",
            index=2,
            content_block={"type": "tool_use", "id": "toolu_1", "name": "get", "input": {}},
        ),
        _msg(
            "content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}
        ),
        _msg(
            "content_block_delta",
            index=2,
            delta={"type": "input_json_delta", "partial_json": '{"a": 1}'},
        ),
        _msg("content_block_stop", index=2),
        _msg(
            "message_delta",
            delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage={"output_tokens": 9},
        ),
        _msg("message_stop"),
    )
    decoder = decode(body)
    state = decoder.state
    assert decoder.route == "messages"
    assert (state.text, state.reasoning, state.finish, state.status) == (
        "Hello",
        "Let me see.",
        "tool_use",
        "complete",
    )
    assert state.usage == {
        "input_tokens": 12,
        "output_tokens": 9,
    }  # cumulative: overlaid, not added
    assert state.signatures == [("signature", "SIG")]
    assert [(c.id, c.name, c.arguments.value) for c in state.tool_calls] == [
        ("toolu_1", "get", '{"a": 1}')
    ]
    assert state.findings == []


def test_messages_failure_error_then_message_stop() -> None:
    # "When a stream fails": an `error` event (api_error), then message_stop.
    body = sse(
        *_messages_start(),
        _msg("error", error={"type": "api_error", "message": "Internal server error"}),
        _msg("message_stop"),
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.text == "Hello"
    assert state.error is not None and (state.error.message, state.error.type) == (
        "Internal server error",
        "api_error",
    )


def test_messages_overloaded_error_event() -> None:
    # ANT-DOC's example, and the SDK's routing on the SSE event name.
    body = sse(
        *_messages_start()[:1],
        'error|{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.error is not None and state.error.message == "Overloaded"


def test_messages_max_tokens_is_incomplete() -> None:
    body = sse(
        *_messages_start(),
        _msg("content_block_stop", index=1),
        _msg("message_delta", delta={"stop_reason": "max_tokens"}, usage={"output_tokens": 3}),
        _msg("message_stop"),
    )
    state = decode(body).state
    assert (state.status, state.finish) == ("incomplete", "max_tokens")


def test_responses_error_event_alone_is_the_final_event() -> None:
    # PROTOCOL.md §3: the stream ends with a terminal event "... or error".
    body = _responses_flow(_resp("error", 4, code="server_error", message="gone"))
    state = decode(body).state
    assert (state.status, state.finish) == ("failed", "error")
    assert not {"no_terminator", "event_after_terminator"} & {f.code for f in state.findings}
