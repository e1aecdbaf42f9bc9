"""protocol/compare.py: what compare shows of two runs, computed without a window."""

from __future__ import annotations

from playground.protocol.compare import (
    run_length,
    sequence_diff,
    tool_calls_of,
    usage_rows,
    word_diff,
)
from playground.protocol.state import StreamState, ToolCallState


def test_run_length_and_usage_rows_and_tool_calls() -> None:
    assert run_length(["a", "a", "b", "a"]) == [("a", 2), ("b", 1), ("a", 1)]
    assert run_length([]) == []
    one = StreamState()
    one.choice(0).text.append("hi", 0)
    one.usage = {"prompt_tokens": 1, "completion_tokens": 2}
    two = StreamState()
    two.usage = {"input_tokens": 4, "output_tokens": 5, "cache_read_input_tokens": 1}
    rows = dict(usage_rows([one, two, None]))
    assert rows["input tokens (reported)"] == ["1", "4", "—"]
    assert rows["cached tokens (reported)"] == ["—", "1", "—"]
    assert rows["text chars (counted)"] == ["2", "0", "—"]
    call = ToolCallState(key=0, name="f")
    call.arguments.append('{"a": 1}', 3)
    bad = ToolCallState(key=1, name="g")
    bad.arguments.append('{"a": ', 4)
    one.tool_calls.extend([call, bad])
    assert tool_calls_of(one) == [
        {"name": "f", "arguments": {"a": 1}},
        {"name": "g", "arguments": '{"a": '},
    ]
    assert tool_calls_of(None) == []


def test_word_diff_runs_and_ratio() -> None:
    runs, ratio = word_diff("the cat sat", "the dog sat")
    assert runs == [("equal", "the ", "the "), ("replace", "cat", "dog"), ("equal", " sat", " sat")]
    assert round(ratio, 3) == round(8 / 10, 3)
    assert word_diff("", "") == ([], 1.0)


def test_sequence_diff_aligns_names_and_flags_counts() -> None:
    a = [("start", 1), ("delta", 3), ("stop", 1)]
    b = [("start", 1), ("delta", 5), ("ping", 1), ("stop", 1)]
    assert sequence_diff(a, b) == [
        (False, False, ("start", 1), ("start", 1)),
        (False, True, ("delta", 3), ("delta", 5)),
        (True, False, None, ("ping", 1)),
        (False, False, ("stop", 1), ("stop", 1)),
    ]
