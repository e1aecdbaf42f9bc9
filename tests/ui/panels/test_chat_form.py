"""The conversational form's fields: each lands in the body under its route's wire name, a body
typed in the JSON view fills them (unfolding Advanced when it sets one), and a schema editor that
holds no JSON object keeps the last body and says why."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.ui.panels.param_fields import parse_stops, show_stops


def _editor(route: str) -> Any:
    from playground.ui.panels.editor import RequestEditor

    editor = RequestEditor(route)
    editor.set_model("m")
    return editor


def test_stop_sequences_are_typed_one_per_line_with_escapes() -> None:
    assert parse_stops("END\n\\n\\n\na,b\n  \n") == ["END", "\n\n", "a,b"]
    assert parse_stops("  ") is None
    stops = ["x, y", "\t", "Human:", "a\\nb"]  # a comma, a tab, a literal backslash-n
    assert parse_stops(show_stops(stops)) == stops


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        (
            "chat",
            {
                "top_p": 0.3,
                "stop": ["END", "\n"],
                "seed": 42,
                "n": 2,
                "frequency_penalty": 0.5,
                "presence_penalty": -1.0,
            },
        ),
        ("responses", {"top_p": 0.3, "reasoning": {"summary": "concise"}}),
        ("messages", {"top_p": 0.3, "stop_sequences": ["END", "\n"]}),
    ],
)
def test_the_advanced_fields_land_on_their_wire_names(
    route: str, expected: dict[str, Any], qapp: Any
) -> None:
    editor = _editor(route)
    assert not editor.advanced.body.isVisibleTo(editor)  # folded until opened
    field = editor.field_widget
    field("top_p").setValue(0.3)
    if route != "responses":
        field("stop").setText("END\n\\n")
    if route == "chat":
        field("seed").setValue(42)
        field("n").setValue(2)
        field("frequency").setValue(0.5)
        field("presence").setValue(-1.0)
    if route == "responses":
        field("summary").setCurrentIndex(field("summary").findData("concise"))
    body = json.loads(editor.raw.toPlainText())
    assert {k: body[k] for k in expected} == expected
    # The body read back fills the same fields, and Advanced opens to show them.
    fresh = _editor(route)
    fresh.set_body(body)
    assert fresh.advanced.body.isVisibleTo(fresh)
    assert fresh.field_widget("top_p").value() == pytest.approx(0.3)
    assert fresh.body() == body
    fresh._form_to_raw()
    assert json.loads(fresh.raw.toPlainText()) == body


def test_parallel_tool_calls_go_with_the_tools_only(qapp: Any) -> None:
    editor = _editor("messages")
    parallel = editor.field_widget("parallel")
    parallel.setCurrentIndex(parallel.findData("off"))
    assert "tool_choice" not in editor.body()
    editor.use_tools.setChecked(True)
    assert editor.body()["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


def test_a_schema_that_is_no_json_keeps_the_last_body_and_says_why(qapp: Any) -> None:
    editor = _editor("chat")
    form = editor.response_format
    form.format.setCurrentIndex(form.format.findData("json_schema"))
    assert form.schema_box.isVisibleTo(editor)
    good = editor.body()
    assert good["response_format"]["json_schema"]["strict"] is True
    form.schema.setPlainText('{"type": "object", ')
    assert form.schema_note.text().startswith("Not valid JSON yet")
    assert editor.raw_error.text().startswith("Cannot build the body: the JSON Schema is not valid")
    assert editor.body() == good
    form.schema.setPlainText('{"type": "objekt"}')
    assert form.schema_note.text().startswith("schema: 'objekt' is not valid")
    assert editor.body()["response_format"]["json_schema"]["schema"] == {"type": "objekt"}
    form.format.setCurrentIndex(form.format.findData(""))
    assert "response_format" not in editor.body() and not form.schema_box.isVisibleTo(editor)


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_opening_advanced_and_a_schema_never_widens_the_form(route: str, qapp: Any) -> None:
    # The panel sizes the editor's column once, from the folded form (route_panel.py): a wider
    # form would run past the column's edge, its fields cut (seen at 1024x700).
    editor = _editor(route)
    editor.resize(400, 900)
    editor.show()
    before = editor.minimumSizeHint().width()
    form = editor.response_format
    form.format.setCurrentIndex(form.format.findData("json_schema"))
    editor.show_advanced(True)
    qapp.processEvents()
    assert editor.minimumSizeHint().width() <= before
    editor.close()
