"""The LLM judge: its prompt filled, its score read from a structured answer, its run saved."""

from __future__ import annotations

from pathlib import Path

from playground.evaluate.outcome import RunOutcome
from playground.evaluate.scorers.judge import DEFAULT_SCHEMA, judge_request
from playground.protocol.capture import read_capture
from playground.sim.server import SimServer
from tests.evaluate.conftest import cell, run_suite, suite_of


def test_the_judge_request_fills_output_expected_and_variables() -> None:
    check = {"type": "llm_judge", "prompt": "{{output}} vs {{expected}} ({{topic}})", "model": "j"}
    variant, _case = judge_request(
        check, RunOutcome("complete", "the answer"), {"expected": "e", "topic": "t"}
    )
    assert variant.prompt == "the answer vs e (t)"
    assert variant.model == "j" and variant.route == "chat"
    assert variant.response_format is not None
    assert variant.response_format["json_schema"]["schema"] == DEFAULT_SCHEMA


def test_the_judge_score_decides_and_its_run_is_linked(sim: SimServer, tmp_path: Path) -> None:
    judge = {"type": "llm_judge", "prompt": "Rate {{output}}", "model": "judge"}
    suite = suite_of(
        checks=[judge | {"min_score": 0}, judge | {"min_score": 1.5}],
    )
    runner = run_suite(suite, sim, tmp_path)
    found = cell(runner, "c1", "chat")
    low, high = found.checks
    assert low.passed and not high.passed and low.value == high.value
    assert isinstance(low.value, float) and 0 <= low.value <= 1
    for result, n in ((low, 0), (high, 1)):
        path = Path(result.capture or "")
        assert result.as_json()["capture"] == str(path) and str(path) in result.detail
        assert path.name == f"c1--chat--r1--judge{n}.capture.jsonl"
        sent = read_capture(path).request
        assert sent is not None and sent["body"]["response_format"]["type"] == "json_schema"
