"""The Evaluate window's editors: the suite they hold is the engine's to check, the checks are
validated by the scorer registry, cases import and export through the engine."""

from __future__ import annotations

from typing import Any

import pytest

from playground.assets import sample_evaluation
from playground.evaluate.model import SuiteError
from playground.protocol.params import RequestParams
from playground.ui.evaluate.sources import variables_of, variant_from_params


def test_the_sample_suite_round_trips_through_the_editors(evaluate: Any) -> None:
    from playground.evaluate.suite import load_suite

    assert evaluate.load_file(sample_evaluation())
    built = evaluate.build_suite()
    assert built is not None
    original = load_suite(sample_evaluation())
    assert [v.name for v in built.variants] == [v.name for v in original.variants]
    assert [(c.id, c.vars, c.checks) for c in built.cases] == [
        (c.id, c.vars, c.checks) for c in original.cases
    ]
    assert built.checks == original.checks and built.pace == original.pace
    assert evaluate.model.variants == ["chat", "responses", "messages"]


def test_a_check_the_registry_refuses_is_marked_and_stops_the_run(evaluate: Any) -> None:
    evaluate.load_file(sample_evaluation())
    evaluate.checks.add_check({"type": "ttft_ms", "max": "soon"})
    assert evaluate.checks.problems() and "checks[7].max" in evaluate.checks.problems()[0]
    assert evaluate.checks.problem.text().startswith("row 8")
    assert evaluate.build_suite() is None and "checks[7]" in evaluate.message.text()


def test_cases_import_and_export_through_the_engine(evaluate: Any) -> None:
    evaluate.load_file(sample_evaluation())
    added = evaluate.cases.import_text('id,topic,audience\nfjords,"fjords, deep",pilot\n', "csv")
    assert added == 1
    case = evaluate.cases.read()[-1]
    assert case == {"id": "fjords", "vars": {"topic": "fjords, deep", "audience": "pilot"}}
    exported = evaluate.cases.export_text("jsonl").splitlines()
    assert len(exported) == 5 and '"fjords, deep"' in exported[-1]
    with pytest.raises(SuiteError, match="nope"):  # the engine's reader refuses it whole
        evaluate.cases.import_text('{"id": "x", "vars": {"topic": "y"}, "nope": 1}\n', "jsonl")
    assert len(evaluate.cases.read()) == 5


def test_a_variant_and_variables_from_a_panels_request() -> None:
    params = RequestParams(model="sim", system="About {{topic}}", prompt="Ask {{q}}",
                           temperature=0.5, tools=[{"type": "function", "function": {
                               "name": "f", "description": "for {{who}}"}}])  # fmt: skip
    assert variables_of(params) == ["topic", "who", "q"]
    variant = variant_from_params("A", "chat", params, "simulator")
    assert variant["params"] == {"temperature": 0.5} and "provider" not in variant
    assert variant["system"] == "About {{topic}}" and variant["prompt"] == "Ask {{q}}"
    try:
        variant_from_params("A", "images", params)
    except ValueError as exc:
        assert "images" in str(exc)
    else:
        raise AssertionError("an images request is not a variant")
