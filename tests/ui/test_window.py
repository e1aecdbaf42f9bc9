"""The whole window on the simulator: inspector rows, linked views, stop, keys, settings, closing."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtTest import QTest

pytestmark = pytest.mark.gui

SECRET = "sk-test-DO-NOT-LEAK-1234567890abcdef"


def test_one_timeline_row_per_event_and_comment(window: Any, send_and_wait: Any) -> None:
    panel = window.show_panel("chat")
    panel.editor.effort.setCurrentIndex(panel.editor.effort.findData("high"))
    assert send_and_wait(panel) == "complete"
    state = panel.session.state
    assert state.comments > 0  # the simulator's ": keep-alive" lines while it "thinks"
    rows = window.inspector.model.rowCount()
    assert rows == state.events + state.comments == len(panel.session.decoder.items)
    assert panel.dump_state()["timeline_rows"] == rows


def test_inspector_follows_the_current_panel(window: Any, send_and_wait: Any) -> None:
    chat = window.show_panel("chat")
    send_and_wait(chat)
    chat_rows = window.inspector.model.rowCount()
    images = window.show_panel("images")
    images.editor.size.setCurrentIndex(images.editor.size.findData("256x256"))
    send_and_wait(images)
    assert window.inspector.model.rowCount() == len(images.session.decoder.items)
    window.show_panel("chat")
    assert window.inspector.model.rowCount() == chat_rows
    assert "POST" in window.inspector.request_view.toPlainText()


def test_linked_views_both_ways(window: Any, qloop: Any, send_and_wait: Any) -> None:
    panel = window.show_panel("chat")
    send_and_wait(panel)
    answer = panel.widgets["answer"]
    buffer = panel.session.state.choices[0].text
    item = buffer.item_at(len(buffer) // 2)
    assert item is not None
    # Output -> timeline: a click in the answer selects the event that carried it.
    answer.itemActivated.emit(item)
    assert window.inspector.selected_item() == item
    # Timeline -> output: selecting a row highlights its contribution.
    other = buffer.item_at(5)
    view = window.inspector.view
    row = window.inspector.filter.map_from_source(other)
    view.selectionModel().setCurrentIndex(
        window.inspector.filter.index(row, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert answer.pane(0).text.extraSelections()


def test_escape_stops_within_200_ms(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("realtime")
    qloop.do(panel.send)
    qloop.wait_until(lambda: panel.session.state is not None and len(panel.session.state.text) > 10)
    task = panel.session._task
    t0 = time.perf_counter()
    window.activateWindow()
    # Esc works while typing in the editor.
    qloop.do(QTest.keyClick, panel.editor.prompt, Qt.Key.Key_Escape)
    assert panel.session.state.status == "cancelled"
    qloop.wait_until(lambda: task.done(), timeout=1.0)
    assert time.perf_counter() - t0 < 0.2
    assert "Cancelled" in panel.banner.text
    assert panel.widgets["answer"].incomplete_marked


def test_new_send_cancels_the_running_one(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("realtime")
    qloop.do(panel.send)
    qloop.wait_until(lambda: panel.session.state is not None and len(panel.session.state.text) > 5)
    first = panel.session._task
    panel.set_pace("fast")
    qloop.do(panel.send)
    qloop.wait_until(lambda: first.done(), timeout=1.0)
    assert first.cancelled()
    assert qloop.run(panel.session.wait()) == "complete"
    # The inspector shows the second run only.
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items)


def test_second_panel_streaming_is_unaffected(window: Any, qloop: Any) -> None:
    chat = window.panels["chat"]
    messages = window.panels["messages"]
    chat.set_pace("realtime")
    qloop.do(chat.send)
    qloop.do(messages.send)
    qloop.wait_until(lambda: chat.session.state is not None and len(chat.session.state.text) > 5)
    qloop.do(chat.stop)
    assert qloop.run(messages.session.wait()) == "complete"
    assert chat.session.state.status == "cancelled"


def test_key_never_reaches_the_inspector_or_disk(
    window: Any, send_and_wait: Any, monkeypatch: pytest.MonkeyPatch, sim: Any
) -> None:
    import os

    monkeypatch.setenv("PLAYGROUND_API_KEY", SECRET)
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText(sim.base_url)
    window.provider_bar.base_url_edit.editingFinished.emit()
    panel = window.show_panel("chat")
    assert not panel.fault.isVisibleTo(panel)  # the fault picker is a simulator thing
    assert send_and_wait(panel) == "complete"
    inspector = window.inspector
    request = inspector.request_view.toPlainText()
    assert "Bearer [redacted]" in request and SECRET not in request
    assert SECRET not in inspector.response_view.toPlainText()
    for row in range(inspector.model.rowCount()):
        for col in range(inspector.model.columnCount()):
            assert SECRET not in str(inspector.model.index(row, col).data() or "")
    assert SECRET not in window.windowTitle()
    assert SECRET not in json.dumps(panel.dump_state(), default=str)
    window.settings.sync()
    for root in (Path(os.environ["PLAYGROUND_DATA_DIR"]), Path(window.settings.fileName()).parent):
        for path in root.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path


def test_provider_and_model_are_remembered_not_the_key(
    qloop: Any, sim: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.main_window import MainWindow

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.provider_bar.set_provider("openai")
    win.provider_bar.set_model("gpt-test-model")
    assert not win.tabs.isTabEnabled(win.tabs.indexOf(win.panels["messages"]))
    qloop.run(win.shutdown())
    win.deleteLater()
    settings.sync()
    again = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    assert again.provider_bar.provider().id == "openai"
    assert again.provider_bar.model() == "gpt-test-model"
    assert SECRET.encode() not in Path(settings.fileName()).read_bytes()
    qloop.run(again.shutdown())
    again.deleteLater()


def test_model_picker_is_filled_from_v1_models(window: Any, qloop: Any) -> None:
    combo = window.provider_bar.model_combo

    async def load() -> None:
        window.provider_bar.load_models()

    qloop.run(load())
    qloop.wait_until(lambda: combo.findText("sim-image") >= 0, timeout=5)
    assert combo.findText("sim-chat") >= 0


def test_raw_json_body_is_kept_in_sync_both_ways(window: Any, qloop: Any) -> None:
    editor = window.panels["chat"].editor
    editor.temperature.setValue(0.7)
    body = json.loads(editor.raw.toPlainText())
    assert body["temperature"] == 0.7
    body["temperature"] = 0.2
    body["max_tokens"] = 77
    body["seed"] = 42  # a key the form does not know survives later form edits
    editor.raw.setPlainText(json.dumps(body))
    editor.flush()
    assert editor.temperature.value() == pytest.approx(0.2)
    assert editor.max_tokens.value() == 77
    editor.system.setPlainText("Be brief.")
    body = json.loads(editor.raw.toPlainText())
    assert body["seed"] == 42 and body["max_tokens"] == 77
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert editor.body() == body


def test_closing_with_streams_in_flight_leaves_no_task(
    qloop: Any, sim: Any, settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    from playground.ui.main_window import MainWindow

    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.show()
    for route in ("chat", "responses", "speech"):
        qloop.do(win.panels[route].send)
    qloop.wait_until(lambda: all(win.panels[r].session.run.t_first_byte for r in ("chat", "responses")))
    caplog.set_level(logging.WARNING, logger="asyncio")
    qloop.do(win.close)
    qloop.run(win.shutdown())
    qloop.sleep(0.05)
    current = asyncio.current_task
    pending = [t for t in asyncio.all_tasks(qloop.loop) if not t.done() and t is not current]
    assert pending == []
    assert not any("destroyed" in r.getMessage() for r in caplog.records)
    win.deleteLater()
