"""json_valid, json_schema, json_path and tool_called."""

from __future__ import annotations

from playground.evaluate.outcome import ToolCall
from tests.evaluate.scorers.helpers import answer, score

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
}


def test_json_valid_takes_a_fenced_block_and_refuses_prose() -> None:
    assert score({"type": "json_valid"}, answer('{"a": 1}')).passed
    assert score({"type": "json_valid"}, answer('```json\n{"a": 1}\n```')).passed
    assert not score({"type": "json_valid"}, answer("Sure! {a: 1}")).passed


def test_json_schema_names_the_failing_path() -> None:
    assert score({"type": "json_schema", "schema": SCHEMA}, answer('{"city": "Oslo"}')).passed
    bad = score({"type": "json_schema", "schema": SCHEMA}, answer('{"city": "Oslo", "days": 0}'))
    assert not bad.passed and bad.value == 1 and bad.detail.startswith("$.days")


def test_json_path_equals_with_variables() -> None:
    run = answer('{"trip": {"stops": [{"city": "Oslo"}, {"city": "Rome"}]}}')
    check = {"type": "json_path", "path": "$.trip.stops[1].city", "equals": "{{city}}"}
    assert score(check, run, city="Rome").passed
    wrong = score(check, run, city="Oslo")
    assert not wrong.passed and wrong.value == "Rome"
    gone = score({"type": "json_path", "path": "$.trip.stops[5]", "equals": 1}, run)
    assert not gone.passed and "nothing at" in gone.detail


def test_tool_called_by_name_values_and_schema() -> None:
    run = answer(tool_calls=[ToolCall("get_weather", '{"city": "Oslo", "days": 2}', True, True)])
    assert score({"type": "tool_called", "name": "get_weather"}, run).passed
    assert not score({"type": "tool_called", "name": "get_time"}, run).passed
    by_value = {"type": "tool_called", "name": "get_weather", "arguments": {"city": "{{c}}"}}
    assert score(by_value, run, c="Oslo").passed
    assert not score(by_value, run, c="Rome").passed
    strict = {
        "type": "tool_called",
        "name": "get_weather",
        "schema": SCHEMA
        | {"additionalProperties": False, "properties": {"city": {"type": "string"}}},
    }
    failed = score(strict, run)
    assert not failed.passed and "days" in failed.detail
