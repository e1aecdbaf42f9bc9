"""Help ▸ Sample evaluation in the main window: the sample suite opens, runs to all-pass on the
simulator, and a cell's run opens in its route's panel."""

from __future__ import annotations

import json
from typing import Any

from playground.ui.evaluate.grid_model import CELL_ROLE


def test_help_sample_evaluation_opens_and_runs_to_all_pass(window: Any, qloop: Any) -> None:
    qloop.do(window.menus.sample_evaluation_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    assert evaluate is not None and evaluate.isVisible()
    assert evaluate.name.text() == "sample"
    assert qloop.do(evaluate.run, "all", -1), evaluate.message.text()
    qloop.run(evaluate.controller.wait(), 90)
    qloop.sleep(0.05)
    model = evaluate.model
    shown = [model.index(r, c).data(CELL_ROLE) for r in range(4) for c in range(3)]
    assert [v.status for v in shown] == ["pass"] * 12
    assert evaluate.grid.status.text().startswith("12 done · 0 failed · 0 remaining")
    # A cell's double click opens its run (its capture) in its route's panel.
    qloop.do(evaluate.grid.table.doubleClicked.emit, model.index(1, 2))
    qloop.wait_until(lambda: window.current_panel().route == "messages", 10)
    qloop.wait_until(lambda: "tides" in window.current_panel().session.state.text.lower(), 10)


def test_run_evaluate_starts_from_the_current_panel(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.editor.prompt.setPlainText("Tell me about {{topic}}")
    qloop.do(window.menus.evaluate_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    variant = evaluate.variants.read()[0]
    assert (variant["name"], variant["route"]) == ("A", "chat")
    assert variant["prompt"] == "Tell me about {{topic}}"
    assert "topic" in evaluate.cases.variables  # a column for the variable the panel uses
    evaluate.variables.refresh()
    assert evaluate.variables.values() == {"topic": ""}


def test_add_from_traffic_makes_a_case_of_the_run_selected_in_history(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("chat")
    panel.editor.prompt.setPlainText("Tell me about owls")
    assert send_and_wait(panel) == "complete"
    answer = panel.session.state.text
    window.history.writer.flush()
    run_id = window.history.list_runs("chat")[0].id
    view = window.docks.history_view
    view.set_route("chat")
    assert view.select(run_id) and view.selected_id() == run_id
    qloop.do(window.menus.evaluate_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    assert evaluate.cases.add_from_traffic() == 1
    case = evaluate.cases.read()[-1]
    assert case["vars"]["input"] == "Tell me about owls"
    assert case["expected"] == answer and answer


def test_a_saved_preset_becomes_a_variant(window: Any, qloop: Any) -> None:
    from playground.runs.presets import Preset, save_preset

    body = {"model": "sim-small", "max_tokens": 300, "temperature": 0.2, "stream": True,
            "system": "Answer about {{topic}} in one line.",
            "messages": [{"role": "user", "content": "What is {{topic}}?"}]}  # fmt: skip
    save_preset(Preset(name="terse", route="messages", body=body, model="sim-small"))
    qloop.do(window.menus.evaluate_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    evaluate.variants.preset_menu.aboutToShow.emit()
    assert "terse" in [a.text() for a in evaluate.variants.preset_menu.actions()]
    evaluate.variants.add_preset("terse")
    variant = evaluate.variants.read()[-1]
    assert (variant["name"], variant["route"], variant["model"]) == (
        "terse",
        "messages",
        "sim-small",
    )
    assert variant["system"] == "Answer about {{topic}} in one line."
    assert variant["params"] == {"temperature": 0.2, "max_tokens": 300}
    assert "What is {{topic}}?" in str(variant.get("messages", "")) + str(variant.get("prompt"))


def test_the_main_windows_shutdown_stops_a_running_grid(window: Any, qloop: Any) -> None:
    qloop.do(window.menus.sample_evaluation_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    assert qloop.do(evaluate.run, "all", -1)
    qloop.wait_until(lambda: evaluate.controller.progress.running >= 1, 10)
    qloop.run(window.menus.evaluate.aclose(), 30)
    assert not evaluate.controller.running and not evaluate.isVisible()
    grid = evaluate.controller.grid
    assert (grid.experiment.folder / "experiment.json").is_file()  # saved, stopped or not
    assert any(c.status == "cancelled" for c in grid.cells)
    assert all(c.finished for c in grid.cells)


def test_a_variant_from_the_panel_keeps_its_thread_and_its_variables_values(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("messages")
    panel.editor.prompt.setPlainText("Tell me about owls")
    assert send_and_wait(panel) == "complete"
    answer = panel.session.state.text
    panel.editor.prompt.setPlainText("And {{topic}}?")
    panel.editor.variables.field("topic").textEdited.emit("tides")
    qloop.do(window.menus.evaluate_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    variant = evaluate.variants.read()[0]
    assert variant["route"] == "messages" and variant["prompt"] == "And {{topic}}?"
    # The thread the panel would send before the message box, as the variant's messages.
    assert [m["role"] for m in variant["messages"]] == ["user", "assistant"]
    assert "Tell me about owls" in str(variant["messages"][0])
    assert json.dumps(answer)[1:-1] in json.dumps(variant["messages"][1])
    evaluate.variables.refresh()
    assert evaluate.variables.values() == {"topic": "tides"}  # the panel's value, not a blank


def test_add_from_traffic_makes_a_case_of_the_conversation_selected(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("chat")
    panel.editor.prompt.setPlainText("Tell me about owls")
    assert send_and_wait(panel) == "complete"
    panel.editor.prompt.setPlainText("And their eyes?")
    assert send_and_wait(panel) == "complete"
    answer = panel.session.state.text
    view = window.docks.conversations_view
    qloop.wait_until(lambda: (view.refresh(), view.ids())[1] != [], 10)
    assert view.select(view.ids()[0])
    qloop.do(window.menus.evaluate_action.trigger)
    evaluate = window.menus.evaluate.evaluate_window
    assert evaluate.cases.add_from_traffic() == 1
    case = evaluate.cases.read()[-1]
    assert case["vars"]["input"] == "And their eyes?"
    assert case["expected"] == answer and answer
    assert "Tell me about owls" in str(case.get("messages"))
