"""Structured output in the window, on the real simulator: a JSON Schema response format set in
the form goes out in each route's shape, the answer is shown as JSON and checked against the
schema (valid, or each error with its JSON path and a schema_invalid finding)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import sim_panel, then_wait

from playground.ui.panels.response_format import SAMPLE_SCHEMA

ROUTES = ("chat", "responses", "messages")
# The simulator fills a schema's types but not its patterns: its city never matches this one.
UNSATISFIABLE = {
    "type": "object",
    "properties": {"city": {"type": "string", "pattern": "^[0-9]+$"}},
    "required": ["city"],
}


def _ask_schema(panel: Any, schema: dict[str, Any]) -> None:
    form = panel.editor.response_format
    form.format.setCurrentIndex(form.format.findData("json_schema"))
    form.schema.setPlainText(json.dumps(schema))
    panel.editor.prompt.setPlainText("The weather in Paris, please")


def _sent_schema(route: str, body: dict[str, Any]) -> Any:
    if route == "chat":
        return body["response_format"]
    if route == "responses":
        return body["text"]
    return body["output_config"]


@pytest.mark.parametrize("route", ROUTES)
def test_a_json_schema_answer_is_shown_as_json_and_valid(route: str, sim: Any, qloop: Any) -> None:
    panel = sim_panel(route, sim, pace="fast")
    _ask_schema(panel, SAMPLE_SCHEMA)
    assert panel.editor.response_format.schema_box.isVisible()
    shape = _sent_schema(route, panel.editor.body())
    assert {
        "chat": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": SAMPLE_SCHEMA, "strict": True},
        },
        "responses": {
            "format": {
                "type": "json_schema",
                "name": "answer",
                "schema": SAMPLE_SCHEMA,
                "strict": True,
            }
        },
        "messages": {"format": {"type": "json_schema", "schema": SAMPLE_SCHEMA}},
    }[route] == shape
    assert then_wait(qloop, panel) == "complete"
    view = panel.views["structured"]
    assert view.isVisible() and not panel.views["answer"].isVisible()
    shown = view.text.toPlainText()
    assert "\n  " in shown  # pretty-printed, one key a line
    answer = json.loads(panel.session.state.text)
    assert json.loads(shown) == answer and set(answer) == set(SAMPLE_SCHEMA["required"])
    assert view.verdict_line.text() == "✓ valid against the schema"
    dump = panel.dump_state()
    assert dump["structured"] == {"valid": True, "errors": []}
    assert "schema_invalid" not in [f["code"] for f in dump["findings"]]


@pytest.mark.parametrize("route", ROUTES)
def test_an_answer_the_schema_refuses_shows_each_error_and_a_finding(
    route: str, sim: Any, qloop: Any
) -> None:
    panel = sim_panel(route, sim, pace="instant")
    _ask_schema(panel, UNSATISFIABLE)
    assert then_wait(qloop, panel) == "complete"
    city = json.loads(panel.session.state.text)["city"]
    error = f"$.city: '{city}' does not match '^[0-9]+$'"
    view = panel.views["structured"]
    assert view.verdict_line.text() == "✗ not valid:\n" + error
    dump = panel.dump_state()
    assert dump["structured"] == {"valid": False, "errors": [error]}
    found = [f for f in dump["findings"] if f["code"] == "schema_invalid"]
    assert len(found) == 1 and error in found[0]["message"]


def test_a_cut_answer_is_not_valid_and_says_why(sim: Any, qloop: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    _ask_schema(panel, SAMPLE_SCHEMA)
    panel.set_fault("drop")  # the connection drops mid-answer
    status = then_wait(qloop, panel)
    assert status == "truncated"
    view = panel.views["structured"]
    assert view.verdict_line.text() == "Not checked: the run ended truncated before a whole answer."
    assert panel.dump_state()["structured"]["valid"] is False


def test_an_answer_refused_before_its_stream_is_not_checked(sim: Any, qloop: Any) -> None:
    panel = sim_panel("responses", sim, pace="instant")
    _ask_schema(panel, SAMPLE_SCHEMA)
    panel.set_fault("http-429")
    assert then_wait(qloop, panel) == "failed"
    view = panel.views["structured"]
    assert view.verdict_line.text() == "Not checked: the run ended failed before an answer."
    assert panel.dump_state()["structured"] == {
        "valid": False,
        "errors": ["the run ended failed before a whole answer"],
    }


def test_without_a_schema_the_markdown_answer_shows_and_no_structured_key(
    sim: Any, qloop: Any
) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    assert then_wait(qloop, panel) == "complete"
    assert panel.views["answer"].isVisible() and not panel.views["structured"].isVisible()
    assert "structured" not in panel.dump_state()


def test_headless_dump_says_structured_on_each_route(tmp_path: Any) -> None:
    from headless_helpers import run_headless_batch

    schema = json.dumps(SAMPLE_SCHEMA)
    formats = {
        "chat": f'{{"response_format": {{"type": "json_schema", "json_schema": '
        f'{{"name": "w", "schema": {schema}}}}}}}',
        "responses": f'{{"text": {{"format": {{"type": "json_schema", "name": "w", '
        f'"schema": {schema}}}}}}}',
        "messages": f'{{"output_config": {{"format": {{"type": "json_schema", '
        f'"schema": {schema}}}}}}}',
    }
    runs: list[tuple[str, ...]] = [
        ("--route", route, "--prompt", "Weather in Oslo", "--pace", "instant", "--body", body)
        for route, body in formats.items()
    ]
    runs.append(("--route", "chat", "--prompt", "Weather in Oslo", "--pace", "instant"))
    *structured, plain = run_headless_batch(tmp_path, runs, parallel=2)
    for run in structured:
        assert run.returncode == 0, run.stderr
        assert run.dump is not None and run.dump["structured"] == {"valid": True, "errors": []}
        assert json.loads(run.dump["text"])["city"] == "Oslo"
    assert plain.dump is not None and "structured" not in plain.dump
