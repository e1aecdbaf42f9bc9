"""Stream scorers on a run's figures and findings."""

from __future__ import annotations

from playground.evaluate.outcome import ToolCall
from tests.evaluate.scorers.helpers import answer, score


def test_time_limits_pass_at_the_limit_and_fail_past_it() -> None:
    run = answer("x", ttft_ms=200.0, thinking_ms=150.0, max_gap_ms=40.0, tokens_per_s=30.0)
    assert score({"type": "ttft_ms", "max": 200}, run).passed
    assert not score({"type": "ttft_ms", "max": 199}, run).passed
    assert score({"type": "first_thinking_ms", "max": 150}, run).passed
    assert not score({"type": "max_gap_ms", "max": 39.9}, run).passed
    assert score({"type": "tokens_per_s", "min": 30}, run).passed
    assert not score({"type": "tokens_per_s", "min": 31}, run).passed


def test_a_figure_never_measured_fails() -> None:
    assert not score({"type": "ttft_ms", "max": 10_000}, answer()).passed
    assert not score({"type": "first_thinking_ms", "max": 10_000}, answer("no thinking")).passed
    assert not score({"type": "tokens_per_s", "min": 0}, answer()).passed


def test_no_findings_by_severity_or_by_code() -> None:
    run = answer("x", findings=[("info", "no_sequence_number", ""), ("warning", "no_usage", "")])
    assert not score({"type": "no_findings"}, run).passed
    assert score({"type": "no_findings", "severity": "error"}, run).passed
    assert not score({"type": "no_findings", "severity": "info"}, run).passed
    assert score({"type": "no_findings", "codes": ["invalid_json"]}, run).passed
    hit = score({"type": "no_findings", "codes": ["no_usage"]}, run)
    assert not hit.passed and hit.value == ["no_usage"]


def test_finish_usage_partials_and_tool_arguments() -> None:
    run = answer("x", finish="length", usage={"output": 3}, partial_images=2)
    assert score({"type": "finish_reason", "value": ["stop", "length"]}, run).passed
    assert not score({"type": "finish_reason", "value": "stop"}, run).passed
    assert score({"type": "usage_reported"}, run).passed
    assert not score({"type": "usage_reported"}, answer("x")).passed
    assert score({"type": "partial_images", "min": 2}, run).passed
    assert not score({"type": "partial_images", "min": 3}, run).passed
    calls = [ToolCall("a", "{}", True, True), ToolCall("b", '{"x": ', False, True)]
    broken = score({"type": "tool_args_valid"}, answer(tool_calls=calls))
    assert not broken.passed and broken.detail == "invalid: b"
    assert score({"type": "tool_args_valid"}, answer(tool_calls=calls[:1])).passed
