"""protocol/structured.py: the schema each route's request names, the answer checked against it
with every error's JSON path, the parse attempted only when a top-level value closes, and the
schema_invalid finding from the bytes of a real-shaped stream."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from protocol_helpers import decode, sse

from playground.protocol.structured import (
    JsonWatch,
    StructuredCheck,
    Verdict,
    check,
    requested_schema,
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "array", "items": {"type": "integer", "minimum": 0}},
        "where": {"type": "object", "properties": {"lat": {"type": "number"}}},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}


def test_each_route_names_its_schema_in_its_own_shape() -> None:
    chat = {
        "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}}
    }
    responses = {"text": {"format": {"type": "json_schema", "name": "a", "schema": SCHEMA}}}
    messages = {"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}}
    older = {"output_format": {"type": "json_schema", "schema": SCHEMA}}
    assert requested_schema("chat", chat) == SCHEMA
    assert requested_schema("responses", responses) == SCHEMA
    assert requested_schema("messages", messages) == SCHEMA
    assert requested_schema("messages", older) == SCHEMA
    # Another route's shape, a JSON object without a schema, plain text: no schema.
    assert requested_schema("chat", responses) is None
    assert requested_schema("responses", chat) is None
    assert requested_schema("chat", {"response_format": {"type": "json_object"}}) is None
    assert requested_schema("responses", {"text": {"format": {"type": "text"}}}) is None
    assert requested_schema("images", chat) is None
    assert requested_schema("chat", None) is None


def test_every_error_has_its_json_path_in_document_order() -> None:
    text = json.dumps({"city": 5, "days": [1, -2, "x"], "where": {"lat": "n"}, "extra": 1})
    assert check(SCHEMA, text) == Verdict(
        False,
        (
            "$: Additional properties are not allowed ('extra' was unexpected)",
            "$.city: 5 is not of type 'string'",
            "$.days[1]: -2 is less than the minimum of 0",
            "$.days[2]: 'x' is not of type 'integer'",
            "$.where.lat: 'n' is not of type 'number'",
        ),
    )
    assert check(SCHEMA, '{"city": "Paris", "days": [1]}') == Verdict(True)
    assert check(SCHEMA, '{"city": "Paris"}').errors == ("$: 'days' is a required property",)


def test_text_that_is_not_json_and_a_schema_that_is_not_a_schema_are_errors() -> None:
    verdict = check(SCHEMA, '{"city": "Par')
    assert not verdict.valid and not verdict.parsed
    assert verdict.errors[0].startswith("$: not valid JSON (Unterminated string")
    bad = check({"type": "object", "required": "city"}, "{}")
    assert bad.valid is False and bad.errors == ("schema: 'city' is not of type 'array'",)
    assert Verdict(False, ("a", "b")).line == "a (+1 more)"
    assert Verdict(True).as_json() == {"valid": True, "errors": []}


def test_the_watch_says_when_a_top_level_value_closed() -> None:
    watch = JsonWatch()
    assert watch.feed('{"a": "}') is False  # a brace inside a string closes nothing
    assert watch.feed('", "b": [1, {') is False
    assert not watch.whole
    assert watch.feed("}]}") is True and watch.whole
    assert watch.closes == 1
    escaped = JsonWatch()
    assert escaped.feed('"a\\"b') is False and escaped.feed('"') is True


@given(st.lists(st.integers(min_value=1, max_value=9), max_size=30))
def test_the_growing_text_is_parsed_only_when_it_closes(cuts: list[int]) -> None:
    doc = json.dumps({"city": "Pa{ris}", "days": [1, 2, 3], "where": {"lat": 48.8}})
    import playground.protocol.structured as structured

    calls: list[str] = []
    real = structured.check

    def counting(schema: Any, text: str) -> Verdict:
        calls.append(text)
        return real(schema, text)

    structured.check = counting
    try:
        watcher = StructuredCheck(SCHEMA)
        verdicts = []
        end = 0
        for size in [*cuts, len(doc)]:
            end = min(len(doc), end + size)
            verdicts.append(watcher.update(doc[:end]))
            if end == len(doc):
                break
    finally:
        structured.check = real
    # However the text was cut, one parse: when the object closed, and it was valid then.
    assert calls == [doc]
    assert [v for v in verdicts if v is not None] == [Verdict(True)]
    assert watcher.final(doc) == Verdict(True)


def _chat_stream(text: str) -> bytes:
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    chunks = [
        json.dumps(
            {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}}]}
        )
        for p in pieces
    ]
    stop = json.dumps(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
    )
    return sse(*chunks, stop, "[DONE]")


REQUEST = {
    "model": "m",
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
    "response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": SCHEMA}},
}


def test_a_final_answer_that_does_not_validate_is_a_schema_invalid_finding() -> None:
    bad = decode(_chat_stream('{"city": 5, "days": []}'), "chat", request=REQUEST)
    found = [(f.severity, f.code, f.message, f.item) for f in bad.state.findings]
    assert found == [
        (
            "warning",
            "schema_invalid",
            "the answer does not validate against the requested JSON Schema: "
            "$.city: 5 is not of type 'string'",
            None,
        )
    ]
    assert bad.state.status == "complete"
    good = decode(_chat_stream('{"city": "Paris", "days": [2]}'), "chat", request=REQUEST)
    assert good.state.findings == []
    # No schema asked: the same text is nobody's business.
    plain = {k: v for k, v in REQUEST.items() if k != "response_format"}
    assert decode(_chat_stream('{"city": 5}'), "chat", request=plain).state.findings == []


def test_a_cut_stream_is_not_checked_and_a_cut_answer_is() -> None:
    data = _chat_stream('{"city": "Paris", "days": [2]}')
    truncated = decode(data[: len(data) // 2], "chat", request=REQUEST)
    assert truncated.state.status == "truncated"
    assert "schema_invalid" not in [f.code for f in truncated.state.findings]
    length = json.dumps(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
        }
    )
    chunk = json.dumps(
        {
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": '{"city": "Pa'}}],
        }
    )
    stopped = decode(sse(chunk, length, "[DONE]"), "chat", request=REQUEST)
    assert stopped.state.status == "incomplete"
    [finding] = [f for f in stopped.state.findings if f.code == "schema_invalid"]
    assert "$: not valid JSON" in finding.message
