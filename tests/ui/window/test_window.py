"""The whole window on the simulator: inspector rows, linked views, stop, keys, settings, close."""

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

from tests.ui.panel_helpers import with_example_prompts

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
    images.editor.image_size.setCurrentIndex(images.editor.image_size.findData("256x256"))
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

    async def scenario() -> None:
        panel.send()
        while panel.session.state is None or len(panel.session.state.text) <= 10:
            await asyncio.sleep(0.01)
        task = panel.session._task
        t0 = time.perf_counter()
        window.activateWindow()
        QTest.keyClick(panel.editor.prompt, Qt.Key.Key_Escape)  # works while typing, too
        assert panel.session.state.status == "cancelled"
        async with asyncio.timeout(1.0):
            while not task.done():
                await asyncio.sleep(0.002)
        assert time.perf_counter() - t0 < 0.2

    qloop.run(scenario())
    assert "Cancelled" in panel.banner.text
    assert panel.widgets["answer"].incomplete_marked


def test_new_send_cancels_the_running_one(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("realtime")

    async def scenario() -> str:
        panel.send()
        while panel.session.state is None or len(panel.session.state.text) <= 5:
            await asyncio.sleep(0.01)
        first = panel.session._task
        panel.set_pace("fast")
        panel.send()
        async with asyncio.timeout(1.0):
            while not first.done():
                await asyncio.sleep(0.005)
        assert first.cancelled()
        status: str = await panel.session.wait()
        return status

    assert qloop.run(scenario()) == "complete"
    qloop.sleep(0.05)
    # The inspector shows the second run only.
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items)


def test_second_panel_streaming_is_unaffected(window: Any, qloop: Any) -> None:
    chat = window.panels["chat"]
    messages = window.panels["messages"]
    chat.set_pace("realtime")

    async def scenario() -> str:
        chat.send()
        messages.send()
        while chat.session.state is None or len(chat.session.state.text) <= 5:
            await asyncio.sleep(0.01)
        chat.stop()
        status: str = await messages.session.wait()
        return status

    assert qloop.run(scenario()) == "complete"
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
    from playground.ui.window.shell import MainWindow

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.provider_bar.set_provider("openai")
    win.provider_bar.set_model("gpt-test-model")
    assert not win.tabs.isTabEnabled(win.tabs.indexOf(win.panels["messages"]))
    qloop.run(win.shutdown())
    win.deleteLater()
    settings.sync()
    again = MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )
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
    qloop.wait_until(lambda: combo.findText("sim-chat") >= 0, timeout=5)
    assert combo.findText("sim-image") < 0  # the chat panel lists the models of its route


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
    from playground.runs.paths import data_dir
    from playground.ui.window.shell import MainWindow

    def journals_open() -> set[Path]:
        return set(data_dir().rglob("*.part"))

    open_before = journals_open()
    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.show()
    with_example_prompts(win)

    async def scenario() -> None:
        for route in ("chat", "responses", "speech"):
            win.panels[route].send()
        while not all(win.panels[r].session.run.t_first_byte for r in ("chat", "responses")):
            await asyncio.sleep(0.01)
        win.close()
        await win.shutdown()

    caplog.set_level(logging.WARNING, logger="asyncio")
    qloop.run(scenario())
    qloop.sleep(0.05)
    pending = [t for t in asyncio.all_tasks(qloop.loop) if not t.done()]
    assert pending == []
    assert not any("destroyed" in r.getMessage() for r in caplog.records)
    # The runs cut short by closing are kept as captures, their journals closed.
    assert journals_open() <= open_before
    win.deleteLater()


def test_open_capture_replays_into_the_right_panel(
    window: Any, qloop: Any, captures_dir: Path
) -> None:
    sse = captures_dir / "chat" / "openai-gpt4o-n3-choices.sse"
    expected = json.loads(sse.with_suffix(".json").read_text())["expected"]
    window.show_panel("images")
    qloop.do(window.open_capture, str(sse))
    panel = window.current_panel()
    assert panel.route == "chat"
    qloop.run(panel.session.wait())
    qloop.sleep(0.05)
    assert panel.session.state.text == expected["text"]
    assert panel.widgets["answer"].tabs.count() == 3  # a tab per choice
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items)


def test_open_capture_of_garbage_says_so_without_a_dialog(
    window: Any, qloop: Any, tmp_path: Path
) -> None:
    bad = tmp_path / "nothing.sse"
    bad.write_bytes(b"\x00\xff garbage \x00")
    qloop.do(window.open_capture, str(bad))  # opens as raw bytes or says why; never raises
    qloop.sleep(0.1)


def test_settings_dialog_keeps_keys_out_of_settings(settings: Any, qtbot: Any) -> None:
    from playground.ui.window.settings_dialog import SettingsDialog, stall_seconds

    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    row = dialog.rows["openai"]
    row.edit.setText(SECRET)
    row.save.click()  # the tests' null keyring keeps nothing: memory does, and the row says so
    assert row.edit.text() == ""
    assert row.note.text() == "kept until you quit: this system has no keyring"
    assert SECRET not in row.note.text()
    dialog.stall.setValue(3.0)
    dialog.accept()
    settings.sync()
    assert stall_seconds(settings) == 3.0
    assert SECRET.encode() not in Path(settings.fileName()).read_bytes()


def test_dropping_an_audio_file_on_transcription_picks_it(window: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    panel = window.show_panel("transcription")
    audio = tmp_path / "clip.wav"
    audio.write_bytes(b"RIFF0000WAVE")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(audio))])
    event = QDropEvent(
        QPointF(5, 5),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    panel.editor.dropEvent(event)
    assert panel.editor.file_path() == str(audio)


def test_key_over_plain_http_to_another_host_is_not_sent(
    window: Any, send_and_wait: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setenv("PLAYGROUND_API_KEY", SECRET)
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText("http://gateway.invalid:9/v1")
    window.provider_bar.base_url_edit.editingFinished.emit()
    panel = window.show_panel("chat")
    # Headless (non-interactive): the transport refuses, nothing leaves the machine.
    assert send_and_wait(panel) == "failed"
    assert "unencrypted" in panel.banner.text and SECRET not in panel.banner.text
    assert panel.session.run.status is None
    # Interactive: the window asks first; "No" sends nothing at all.
    window.interactive = True
    asked: list[str] = []

    def answer_no(*args: Any, **kwargs: Any) -> Any:
        asked.append(str(args[1]))
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "warning", answer_no)
    before = panel.session.run
    panel.send()
    assert asked and panel.session.run is before and not panel.session.is_running


def test_connection_refused_is_said_in_one_sentence(window: Any, send_and_wait: Any) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText(f"http://127.0.0.1:{port}/v1")
    window.provider_bar.base_url_edit.editingFinished.emit()
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "failed"
    assert "refused" in panel.banner.text and "Traceback" not in panel.banner.text
    assert panel.banner.retry.isVisibleTo(panel)


def test_each_run_is_journaled_in_the_history(window: Any, send_and_wait: Any) -> None:
    assert window.history is not None
    panel = window.show_panel("chat")
    before = len(window.history.list_runs("chat"))
    assert send_and_wait(panel) == "complete"
    runs = window.history.list_runs("chat")
    assert len(runs) == before + 1 and runs[0].status == "complete"


def test_switching_panels_mid_stream_keeps_one_row_per_item(window: Any, qloop: Any) -> None:
    chat = window.show_panel("chat")
    chat.set_pace("realtime")

    async def scenario() -> None:
        chat.send()
        while chat.session.state is None or len(chat.session.state.text) <= 5:
            await asyncio.sleep(0.01)
        window.show_panel("images")
        await asyncio.sleep(0.1)
        window.show_panel("chat")  # back while the stream still runs
        await asyncio.sleep(0.1)
        await asyncio.sleep(0.1)
        chat.stop()
        await chat.session.wait()
        await asyncio.sleep(0.05)

    qloop.run(scenario())
    model = window.inspector.model
    assert model.rowCount() == len(chat.session.decoder.items)
    assert [int(model.index(r, 0).data()) for r in range(model.rowCount())] == list(
        range(model.rowCount())
    )


def test_an_http_error_gets_its_timeline_row(window: Any, send_and_wait: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_fault("http-500")
    assert send_and_wait(panel) == "failed"
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items) == 1
    assert "500" in window.inspector.response_view.toPlainText()


def test_only_the_current_panel_is_built_before_it_is_needed(
    qloop: Any, sim: Any, settings: Any, qtbot: Any, send_and_wait: Any
) -> None:
    """The window paints before the six panels not shown are built; any is one ask away."""
    from playground.protocol.requests import ROUTE_NAMES, route_spec
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    try:
        win.show()
        assert list(win.panels.built()) == ["chat"]
        assert win.tabs.count() == len(ROUTE_NAMES)  # every tab is there from the start
        titles = [route_spec(r).title for r in ROUTE_NAMES]
        assert [win.tabs.tabText(i) for i in range(win.tabs.count())] == titles
        # `in`, len() and the keys never build a panel.
        assert "music" in win.panels and "nope" not in win.panels
        assert len(win.panels) == len(ROUTE_NAMES) and list(win.panels) == list(ROUTE_NAMES)
        assert list(win.panels.built()) == ["chat"]
        with pytest.raises(KeyError):
            win.panels["nope"]

        # Indexing builds exactly that panel, in its own tab, without switching to it.
        messages = win.panels["messages"]
        assert isinstance(messages, RoutePanel) and messages.route == "messages"
        assert list(win.panels.built()) == ["chat", "messages"]
        assert win.tabs.indexOf(messages) == ROUTE_NAMES.index("messages")
        assert win.current_panel().route == "chat"
        assert win.panels["messages"] is messages  # built once

        # Switching tabs builds the panel it lands on; the inspector follows it.
        win.tabs.setCurrentIndex(ROUTE_NAMES.index("images"))
        images = win.current_panel()
        assert images.route == "images" and win.tabs.currentWidget() is images
        assert win.panels.is_built("images") and not win.panels.is_built("music")
        assert win.followed is images

        # A panel built late streams like the others.
        music = win.show_panel("music")
        music.set_pace("fast")
        assert send_and_wait(music) == "complete"
        assert music.session.decoder is not None
        assert win.inspector.model.rowCount() == len(music.session.decoder.items) > 0

        # Idle time after the first frame builds the rest, one per tick.
        deadline = time.monotonic() + 10
        while len(win.panels.built()) < len(ROUTE_NAMES) and time.monotonic() < deadline:
            qloop.run(asyncio.sleep(0.05), 5)
        assert list(win.panels.built()) == list(ROUTE_NAMES)
        assert all(isinstance(win.tabs.widget(i), RoutePanel) for i in range(win.tabs.count()))
    finally:
        win._closing = True
        qloop.run(win.shutdown(), 10)
        win.close()
        win.deleteLater()


def test_the_first_keys_typed_go_to_the_message_box(window: Any, qtbot: Any) -> None:
    # Left on the first widget of the tab order, the provider, a new user's first letters
    # picked another provider by its initial ("a": Anthropic).
    qtbot.waitUntil(lambda: window._after_done, timeout=5000)
    prompt = window.current_panel().editor.prompt_box()
    provider = window.provider_bar.provider()
    assert window.focusWidget() is prompt
    QTest.keyClicks(window.focusWidget(), "a question ")
    assert prompt.toPlainText().startswith("a question ")  # (the tests give an example after)
    assert window.provider_bar.provider() == provider
