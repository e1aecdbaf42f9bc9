"""In the real window: menus, round trips live -> capture -> inspect -> replay, replay
controls, the timing dock, linked selection, history, exports, the bug-report bundle."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest


def inspect_json(path: Path) -> dict[str, Any]:
    """`playground inspect FILE --json`, in-process."""
    from playground.cli.inspect import main

    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    with contextlib.redirect_stdout(out):
        assert main([str(path), "--json"]) == 0
    out.flush()
    dump: dict[str, Any] = json.loads(raw.getvalue())
    return dump


def replay_and_wait(qloop: Any, panel: Any, capture: Any, speed: float = 0.0) -> Any:
    control = panel.session.start_replay(capture, speed)
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    return control


def texts_of(panel: Any) -> tuple[str, str]:
    state = panel.session.state
    return state.text, state.status


def menu_texts(menu: Any) -> list[str]:
    out = []
    for action in menu.actions():
        out.append(action.text().replace("&", ""))
        if action.menu() is not None:
            out.extend(menu_texts(action.menu()))
    return out


def test_menus_docks_and_actions_are_installed(window: Any) -> None:
    file_items = menu_texts(window.file_menu)
    assert sum("Open capture" in t for t in file_items) == 1  # the window's own, not a second
    for wanted in ("Save run as capture…", "as curl", "as Python", "as TypeScript"):
        assert wanted in file_items
    assert "Bug-report bundle…" in file_items
    assert {"Timing", "History"} <= set(menu_texts(window.view_menu))
    run_items = menu_texts(window.run_menu)
    for wanted in ("Replay this run", "Speed 1x", "Speed 10x", "Speed instant", "Compare…"):
        assert wanted in run_items
    assert window.menus.save_action.shortcut().toString() == "Ctrl+S"
    assert window.docks.dock("timing") is not None and window.docks.dock("history") is not None


def test_live_run_to_capture_to_inspect_to_replay(
    window: Any, qloop: Any, send_and_wait: Any, tmp_path: Path
) -> None:
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    live_text, live_status = texts_of(panel)
    assert len(live_text) > 20
    path = window.run_files.save_capture(str(tmp_path / "run.capture.jsonl"))
    assert path is not None and path.exists()
    assert "Bearer" not in path.read_text() or "[redacted]" in path.read_text()

    inspected = inspect_json(path)
    assert (inspected["text"], inspected["status"]) == (live_text, live_status)

    from playground.protocol.capture import read_capture

    window.open_capture(str(path))  # the File > Open path: replays instantly
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    assert window.current_panel() is panel
    assert texts_of(panel) == (live_text, live_status)
    assert panel.session.run.replay
    # And the replay at speed through the session gives the same again.
    replay_and_wait(qloop, panel, read_capture(path), speed=10.0)
    assert texts_of(panel) == (live_text, live_status)


@pytest.mark.parametrize(
    "name",
    [
        "chat/deepseek-reasoner-reasoning-content.sse",
        "responses/openai-gpt5nano-error-then-failed.sse",
        "messages/anthropic-sonnet4-text-tool-use.sse",
    ],
)
def test_replay_of_a_real_capture_agrees_with_inspect(
    window: Any, qloop: Any, captures_dir: Path, name: str
) -> None:
    path = captures_dir / name
    expected = inspect_json(path)
    window.open_capture(str(path))
    panel = window.current_panel()
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.05)
    state = panel.session.state
    assert (state.text, state.status) == (expected["text"], expected["status"])
    assert state.reasoning == expected["reasoning"]
    assert len(state.tool_calls) == len(expected["tool_calls"])
    assert window.inspector.model.rowCount() == len(panel.session.decoder.items)


def _spread_capture(tmp_path: Path, n: int = 20, step: float = 0.1) -> Path:
    """A chat capture whose chunks arrive every ``step`` seconds (known timing)."""
    from playground.runs.journal import CaptureJournal

    path = tmp_path / "spread.capture.jsonl"
    journal = CaptureJournal(path, "chat")
    journal.on_request("POST", "http://127.0.0.1:9/v1/chat/completions", {}, b'{"stream":true}')
    journal.on_response(200, [("content-type", "text/event-stream")], 0.05)
    for i in range(n):
        chunk = {"choices": [{"index": 0, "delta": {"content": f"w{i} "}}]}
        journal.on_chunk((i + 1) * step, f"data: {json.dumps(chunk)}\n\n".encode())
    journal.on_chunk((n + 1) * step, b"data: [DONE]\n\n")
    journal.on_end((n + 1) * step)
    return path


def test_replay_controls_pause_speed_and_seek(window: Any, qloop: Any, tmp_path: Path) -> None:
    from playground.protocol.capture import read_capture

    panel = window.show_panel("chat")
    capture = read_capture(_spread_capture(tmp_path))
    window.open_capture(str(_spread_capture(tmp_path)))
    qloop.run(panel.session.wait(), 20)
    full = panel.session.state.text
    assert full.startswith("w0 w1 ") and full.endswith("w19 ")

    window.replay.set_speed(1.0)
    control = window.replay.replay_current()
    assert window.replay.replay_bar.isVisible()
    qloop.wait_until(lambda: "w2 " in panel.session.state.text, 5)
    window.replay.toggle_pause()
    assert control.paused
    frozen = panel.session.state.text
    qloop.sleep(0.4)  # four chunks were due meanwhile
    assert panel.session.state.text == frozen
    assert panel.session.is_running

    # Seek forward while paused: everything up to 1.55 s shows, and it stays paused.
    control = window.replay.seek(1.55)
    qloop.sleep(0.1)
    assert panel.session.state.text == " ".join(f"w{i}" for i in range(15)) + " "
    assert control.paused

    # Seek backward: the run restarts and replays up to 0.55 s at once.
    control = window.replay.seek(0.55)
    qloop.sleep(0.1)
    assert panel.session.state.text == "w0 w1 w2 w3 w4 "
    assert control.paused

    window.replay.set_speed(0.0)  # instant from here on
    window.replay.toggle_pause()
    qloop.run(panel.session.wait(), 10)
    assert panel.session.state.text == full and panel.session.state.status == "complete"
    window.replay._update_scrubber()
    assert window.replay.scrubber.value() == 1000
    assert read_capture(_spread_capture(tmp_path)).chunks == capture.chunks


def test_timing_dock_follows_the_panel(window: Any, qloop: Any, tmp_path: Path) -> None:
    window.docks.dock("timing").show()
    panel = window.show_panel("chat")
    window.open_capture(str(_spread_capture(tmp_path, n=10, step=0.1)))
    qloop.run(panel.session.wait(), 20)
    qloop.sleep(0.1)
    timing = window.docks.timing_view.timing
    assert timing is not None
    assert len(timing.times) == len(panel.session.decoder.items) == 11
    assert timing.t_first_text == pytest.approx(0.1)
    assert timing.channels["text"].deltas == 10
    assert timing.channels["text"].tokens_per_second == pytest.approx(10 / 0.9)
    rows = dict(
        (
            window.docks.timing_view.table.item(r, 0).text(),
            window.docks.timing_view.table.item(r, 1).text(),
        )
        for r in range(window.docks.timing_view.table.rowCount())
    )
    assert rows["first answer token"] == "100 ms"
    image = window.docks.timing_view.grab()
    assert not image.isNull()


def test_linked_selection_both_ways(window: Any, qloop: Any, send_and_wait: Any) -> None:
    window.docks.dock("timing").show()
    panel = window.show_panel("chat")
    send_and_wait(panel)
    qloop.sleep(0.3)  # the timing view recomputes on the finish
    buffer = panel.session.state.choices[0].text
    text_view = panel.widgets["answer"].pane(0).text

    # A real click on a word of the answer selects the timeline row that carried it.
    offset = len(buffer) // 2
    want = buffer.item_at(offset)
    cursor = text_view.textCursor()
    cursor.setPosition(offset)
    point = text_view.cursorRect(cursor).center() + QPoint(1, 0)
    QTest.mouseClick(text_view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    got = window.inspector.selected_item()
    # (After the stream the answer is rendered Markdown: the widget maps document positions
    # back to text offsets itself.)
    clicked = text_view.item_at_position(text_view.cursorForPosition(point).position())
    assert got is not None and got == clicked
    assert abs(got - want) <= 5

    # The timing chart is linked too: activating a tick selects its row and highlights its text.
    chart = window.docks.timing_view.chart
    other = buffer.item_at(3)
    assert other is not None
    chart.itemActivated.emit(other)
    assert window.inspector.selected_item() == other
    assert text_view.extraSelections()
    # And selecting a row in the timeline highlights it on the chart.
    window.inspector.itemSelected.emit(want)
    assert chart._highlight == want


def test_history_reopen_export_and_bundle(
    window: Any, qloop: Any, send_and_wait: Any, tmp_path: Path
) -> None:
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    live_text = panel.session.state.text
    qloop.sleep(0.05)
    view = window.docks.history_view
    view.set_route("chat")
    assert view.tree.topLevelItemCount() >= 1
    run_id = view.tree.topLevelItem(0).data(0, Qt.ItemDataRole.UserRole)
    assert view.select(run_id)

    window.show_panel("responses")  # the list follows the panel; the run reopens in its own
    assert view.route == "responses"
    assert view.reopen(run_id) is not None
    qloop.run(panel.session.wait(), 20)
    assert window.current_panel() is panel
    assert panel.session.state.text == live_text

    code = view.export("python", run_id)
    assert code is not None and "OpenAI(" in code and "stream" in code
    saved = view.save_capture(run_id, target=str(tmp_path / "copy.jsonl"))
    assert saved is not None and inspect_json(saved)["text"] == live_text
    zipped = view.bundle(run_id, target=str(tmp_path / "bug.zip"))
    assert zipped is not None
    with zipfile.ZipFile(zipped) as archive:
        names = set(archive.namelist())
        assert {"request.json", "capture.jsonl", "timing.json", "versions.json"} <= names
        assert json.loads(archive.read("result.json"))["text"] == live_text


def test_file_menu_export_and_bundle_of_the_current_run(
    window: Any, send_and_wait: Any, tmp_path: Path
) -> None:
    from PySide6.QtGui import QGuiApplication

    panel = window.show_panel("messages")
    assert send_and_wait(panel) == "complete"
    curl = window.run_files.export("curl")
    assert curl is not None and curl.startswith("curl -N")
    assert QGuiApplication.clipboard().text() == curl
    ts = window.run_files.export("typescript")
    assert ts is not None and "anthropic" in ts.lower()
    out = window.run_files.bundle(str(tmp_path / "b.zip"))
    assert out is not None and zipfile.is_zipfile(out)


def test_exported_python_reads_the_simulator_stream(
    window: Any, send_and_wait: Any, tmp_path: Path
) -> None:
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    shown = panel.session.state.text
    code = window.run_files.export("python")
    assert code is not None and "sk-" not in code
    script = tmp_path / "exported.py"
    script.write_text(code)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PLAYGROUND_API_KEY"] = "dummy-key"
    env["OPENAI_API_KEY"] = "dummy-key"
    from playground.sim.server import SimServer

    # The export carries no X-Sim-Pace: $PLAYGROUND_BASE_URL points it at an instant simulator.
    with SimServer(pace="instant") as instant:
        env["PLAYGROUND_BASE_URL"] = instant.base_url
        done = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env
        )
    assert done.returncode == 0, done.stderr[-2000:]
    words = [w for w in shown.split() if len(w) > 3][:5]
    assert words and all(w in done.stdout for w in words)


def test_compare_two_routes_side_by_side(window: Any, qloop: Any, sim: Any) -> None:
    from playground.ui.compare.window import ColumnConfig, CompareWindow
    from playground.ui.views.live_text import LiveText

    compare = CompareWindow(
        [ColumnConfig("chat", "simulator"), ColumnConfig("messages", "simulator")],
        default_base_url=sim.base_url,
        sim_headers={"X-Sim-Pace": "fast"},
    )
    compare.show()
    assert not compare.diff_box.isVisible()  # nothing to compare before the first run
    compare.prompt.setPlainText("Tell me about rivers.")
    finished: list[bool] = []
    compare.allFinished.connect(lambda: finished.append(True))
    compare.send_all()
    assert compare.error.text() == ""
    qloop.wait_until(lambda: bool(finished), 30)
    qloop.sleep(0.1)
    a, b = compare.columns
    assert a.session.state is not None and b.session.state is not None
    assert a.session.state.status == b.session.state.status == "complete"
    assert len(a.text) > 20 and len(b.text) > 20
    for column in (a, b):  # the answers as the panels render them (Markdown, laid out)
        column.answer.flush()
        whole = LiveText(markdown=True)
        whole.show_text(column.text)
        whole.flush()
        assert column.answer.toPlainText() == whole.toPlainText()
    assert a.timing is not None and b.timing is not None
    assert "first byte" in a.figures.text()
    diff = compare.text_diff.toHtml()
    assert "similar" in diff
    events = compare.events_diff.toPlainText()
    assert "chunk" in events and "message_start" in events
    assert "output tokens (reported)" in compare.usage_table.toPlainText()
    assert compare.diff_box.isVisible()
    compare.close()


def test_compare_from_the_window_uses_the_simulator(window: Any, qloop: Any) -> None:
    compare = window.compare.open()
    assert [c.config.route for c in compare.columns] == ["chat", "responses", "messages"]
    compare.remove_column(compare.columns[1])
    assert len(compare.columns) == 2
    compare.send_all()
    qloop.wait_until(lambda: all(c.timing is not None for c in compare.columns), 30)
    assert all(c.text for c in compare.columns)
    compare.close()


def _drop_on_window(window: Any, path: Path) -> None:
    """A local file dropped on the window itself (not on a panel's form)."""
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)


def test_dropping_a_capture_file_replays_it(window: Any, qloop: Any, tmp_path: Path) -> None:
    path = _spread_capture(tmp_path, n=4, step=0.01)
    window.show_panel("images")
    _drop_on_window(window, path)
    panel = window.current_panel()
    assert panel.route == "chat"  # the capture's route picks the panel
    qloop.run(panel.session.wait(), 10)
    assert panel.session.state.text == "w0 w1 w2 w3 "


def test_an_audio_file_dropped_on_the_window_is_transcriptions_input(
    window: Any, tmp_path: Path
) -> None:
    audio = tmp_path / "note.wav"
    audio.write_bytes(b"RIFF\x00\x00\x00\x00WAVE")
    panel = window.show_panel("transcription")
    _drop_on_window(window, audio)
    assert window.current_panel() is panel  # not opened as a capture
    assert panel.editor.file_path() == str(audio)


def test_timing_updates_while_the_stream_runs(window: Any, qloop: Any) -> None:
    window.docks.dock("timing").show()
    panel = window.show_panel("chat")
    panel.set_pace("realtime")
    panel.send()
    qloop.wait_until(lambda: panel.session.state is not None and len(panel.session.state.text) > 10)
    qloop.sleep(0.4)  # at most ~4 recomputes a second while streaming
    assert panel.session.is_running
    timing = window.docks.timing_view.timing
    assert timing is not None and timing.t_first_text is not None
    assert 0 < len(timing.times) <= len(panel.session.decoder.items)
    panel.stop()
    qloop.sleep(0.1)
    assert len(window.docks.timing_view.timing.times) == len(panel.session.decoder.items)


def test_no_key_in_saved_capture_exports_or_bundle(
    window: Any, qloop: Any, sim: Any, send_and_wait: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from PySide6.QtGui import QGuiApplication

    secret = "sk-test-EXTRAS-NEVER-LEAK-0987654321"
    monkeypatch.setenv("PLAYGROUND_API_KEY", secret)
    window.provider_bar.set_provider("custom")
    window.provider_bar.base_url_edit.setText(sim.base_url)
    window.provider_bar.base_url_edit.editingFinished.emit()
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    assert window.run_files.secrets() == (secret,)
    written = [
        window.run_files.save_capture(str(tmp_path / "c.jsonl")),
        window.run_files.bundle(str(tmp_path / "b.zip")),
    ]
    for path in written:
        assert path is not None and secret.encode() not in path.read_bytes()
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        for name in archive.namelist():
            assert secret.encode() not in archive.read(name)
    for fmt in ("curl", "python", "typescript"):
        code = window.run_files.export(fmt)
        assert code is not None and secret not in code and "PLAYGROUND_API_KEY" in code
        assert secret not in QGuiApplication.clipboard().text()
    compare = window.compare.open()
    assert secret not in compare.windowTitle()
    compare.close()


@pytest.mark.parametrize("route", ["images", "speech", "responses"])
def test_timing_of_media_and_other_routes(
    window: Any, qloop: Any, send_and_wait: Any, route: str
) -> None:
    window.docks.dock("timing").show()
    panel = window.show_panel(route)
    if route == "images":
        panel.editor.image_size.setCurrentIndex(panel.editor.image_size.findData("256x256"))
    assert send_and_wait(panel) == "complete"
    qloop.sleep(0.1)
    timing = window.docks.timing_view.timing
    assert timing is not None and len(timing.times) == len(panel.session.decoder.items)
    if route == "images":
        assert timing.t_first_image is not None and timing.channels["image"].deltas >= 1
    elif route == "speech":
        audio = timing.channels["audio"]
        assert timing.t_first_audio is not None
        assert audio.chars == len(panel.session.state.audio.data)
    else:
        assert timing.t_first_text is not None
    assert not window.docks.timing_view.grab().isNull()
