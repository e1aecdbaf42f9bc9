"""The Traffic panel: the proxy started from the window, the openai SDK through it, live views."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from tests.ui.conftest import Loop

if TYPE_CHECKING:
    from openai import Stream
    from openai.types.chat import ChatCompletionChunk

# A named exception to the suite's "every warning fails": stopping the proxy's uvicorn thread can
# leave one upstream socket of its loop to the collector (seen once per window, at shutdown, and
# not yet traced); every other resource warning here still fails.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Exception ignored in. <(socket.socket|function _SelectorTransport.__del__):"
    "pytest.PytestUnraisableExceptionWarning"
)

SECRET = "sk-traffic-test-9f8e7d6c5b4a"
MESSAGES = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Tell me about rivers."},
]


class SdkRun(threading.Thread):
    """The official openai SDK streaming one chat completion, off the Qt thread."""

    def __init__(self, base_url: str, pace: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.base_url, self.pace, self.seed = base_url, pace, seed
        self.text = ""
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            from openai import OpenAI

            client = OpenAI(base_url=self.base_url, api_key=SECRET, max_retries=0)
            stream = client.chat.completions.create(
                model="sim-chat",
                messages=MESSAGES,  # type: ignore[arg-type]
                stream=True,
                temperature=0.3,
                seed=self.seed,
                extra_headers={"X-Sim-Pace": self.pace},
            )
            # A stream: the untyped messages leave mypy the overload's union of both answers.
            for chunk in cast("Stream[ChatCompletionChunk]", stream):
                if chunk.choices and chunk.choices[0].delta.content:
                    self.text += chunk.choices[0].delta.content
        except BaseException as exc:  # reported by the test
            self.error = exc


def _sdk(qloop: Loop, base_url: str, pace: str = "fast", seed: int = 1) -> SdkRun:
    run = SdkRun(base_url, pace, seed)
    run.start()
    return run


def _finish(qloop: Loop, run: SdkRun) -> None:
    qloop.wait_until(lambda: not run.is_alive(), 30)
    assert run.error is None, run.error
    assert run.text


def _words(text: str) -> list[str]:
    """The words of a text, without Markdown's marks (the answer view renders them at the end)."""
    return re.findall(r"[^\W\d_]{3,}", text)


@pytest.fixture
def traffic(window: Any, sim: Any, qloop: Loop) -> Any:
    address = qloop.do(window.start_proxy, sim.base_url)
    assert address.startswith("http://127.0.0.1:") and address.endswith("/v1")
    return window.traffic


def test_the_status_line_says_where_to_point_the_app(traffic: Any, sim: Any) -> None:
    panel = traffic.panel
    assert panel.address.text() == f"proxy: {traffic.base_url} -> {sim.base_url.rstrip('/')}"
    panel.copy_address()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == traffic.base_url


def test_an_sdk_stream_fills_the_list_live_and_renders_in_the_route_views(
    window: Any, traffic: Any, qloop: Loop
) -> None:
    panel = traffic.panel
    run = _sdk(qloop, traffic.base_url, pace="20")  # about 20 ms a token: seconds of streaming
    # Live: the row is there, streaming, and its text grows while the SDK still reads.
    qloop.wait_until(lambda: bool(panel.model.entries) and bool(panel.shown_text()), 20)
    assert run.is_alive()
    entry = panel.model.entries[0]
    assert entry.status == "streaming"
    assert panel.shown is entry
    _finish(qloop, run)
    qloop.wait_until(lambda: entry.status == "complete", 10)
    qloop.sleep(0.1)
    cells = panel.model.row_cells(entry)
    assert cells[1:6] == ("POST", "chat", "sim-chat", "200", "complete")
    assert cells[6].endswith(" ms") and cells[7].endswith(" ms")
    assert entry.session.state.text == run.text
    assert set(_words(panel.shown_text())) == set(_words(run.text))
    # The inspector follows the exchange: its request and every event.
    inspector = window.inspector
    assert window.current_run.session is entry.session
    assert inspector.model.rowCount() == len(entry.session.decoder.items) > 3
    assert "/v1/chat/completions" in inspector.request_view.toPlainText()
    # Linked views: a part of the answer selects the event that carried it in the inspector.
    answer = panel.views_for("chat")["answer"]
    item = next(i.index for i in entry.session.decoder.items if i.index > 2)
    answer.itemActivated.emit(item)
    assert inspector.selected_item() == item
    assert not answer.pane(0).text.extraSelections()
    inspector.itemSelected.emit(item)  # ...and a row chosen there is marked in the answer
    assert answer.pane(0).text.extraSelections()
    # The timing dock follows it too (it subscribes to the current run).
    timing = window.docks.timing_view
    assert timing._session is entry.session
    # A route tab takes the focus back; a click on the exchange brings it here again.
    window.show_panel("messages")
    assert window.current_run.session is window.panels["messages"].session
    index = panel.table.model().index(0, 0)
    panel.table.clicked.emit(index)
    assert window.current_run.session is entry.session


def test_open_in_panel_copies_the_request_into_the_chat_editor(
    window: Any, traffic: Any, qloop: Loop
) -> None:
    run = _sdk(qloop, traffic.base_url)
    _finish(qloop, run)
    panel = traffic.panel
    qloop.wait_until(
        lambda: bool(panel.model.entries) and panel.model.entries[0].status != "streaming"
    )
    qloop.do(panel.openRequested.emit, panel.model.entries[0])  # the panel's Open in panel
    chat = window.panels["chat"]
    assert window.tabs.currentWidget() is chat
    body = chat.editor.body()
    assert body["messages"] == MESSAGES
    assert body["model"] == "sim-chat" and body["temperature"] == 0.3 and body["stream"] is True


def test_two_exchanges_compared(traffic: Any, qloop: Loop) -> None:
    first = _sdk(qloop, traffic.base_url, seed=1)
    _finish(qloop, first)
    second = _sdk(qloop, traffic.base_url, seed=2)
    _finish(qloop, second)
    panel = traffic.panel
    qloop.wait_until(
        lambda: (
            len(panel.model.entries) == 2
            and all(e.status == "complete" for e in panel.model.entries)
        )
    )
    panel.table.selectAll()
    assert panel.compare_button.isEnabled()
    panel.compare_button.click()
    dialog = traffic.compare_dialog
    assert dialog is not None
    older, newer = panel.model.entries[1], panel.model.entries[0]
    assert f"#{older.ex.id}" in dialog.html.split("<b>B</b>")[0]
    page = dialog.view.toPlainText()
    for word in _words(first.text)[:3] + _words(second.text)[:3]:
        assert word.strip(".,;:!?") in page
    assert "Events" in page and newer.ex.id != older.ex.id


def test_a_filter_keeps_the_matching_exchanges(traffic: Any, qloop: Loop) -> None:
    run = _sdk(qloop, traffic.base_url)
    _finish(qloop, run)
    panel = traffic.panel
    qloop.wait_until(lambda: bool(panel.model.entries))
    panel.filter_text.setText("sim-chat")
    assert panel.filter.rowCount() == 1
    panel.filter_text.setText("no-such-model")
    assert panel.filter.rowCount() == 0
    panel.filter_text.clear()
    panel.filter_route.setCurrentIndex(panel.filter_route.findData("images"))
    assert panel.filter.rowCount() == 0
    panel.filter_route.setCurrentIndex(panel.filter_route.findData("chat"))
    assert panel.filter.rowCount() == 1


def test_the_key_never_shows_in_a_widget_a_dump_or_a_file(
    window: Any, traffic: Any, qloop: Loop, tmp_path: Path
) -> None:
    from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QTextEdit

    run = _sdk(qloop, traffic.base_url)
    _finish(qloop, run)
    panel = traffic.panel
    qloop.wait_until(
        lambda: bool(panel.model.entries) and panel.model.entries[0].status != "streaming"
    )
    entry = panel.model.entries[0]
    files = window.docks.exchange_files(entry)
    assert files.save_capture(str(tmp_path / "exchange.capture.jsonl")) is not None
    assert files.bundle(str(tmp_path / "bundle.zip")) is not None
    code = files.export("python")
    assert code is not None and "Tell me about rivers." in code
    assert SECRET not in code
    qloop.do(window.docks.open_exchange, entry)
    (tmp_path / "dump.json").write_text(str(window.panels["chat"].dump_state()))
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    import zipfile

    with zipfile.ZipFile(tmp_path / "bundle.zip") as bundle:
        for name in bundle.namelist():
            assert SECRET.encode() not in bundle.read(name), name
    # The exchange tabs as the user opens them (their text is formatted when shown).
    window.inspector.tabs.setCurrentWidget(window.inspector.request_view)
    window.inspector.tabs.setCurrentWidget(window.inspector.response_view)
    texts = []
    for widget in window.findChildren(QLabel) + window.findChildren(QLineEdit):
        texts.append(widget.text())
    for widget in window.findChildren(QPlainTextEdit) + window.findChildren(QTextEdit):
        texts.append(widget.toPlainText())
    model = window.inspector.model
    for row in range(model.rowCount()):
        for col in range(model.columnCount()):
            texts.append(str(model.index(row, col).data() or ""))
    assert any("Authorization" in t or "authorization" in t for t in texts)  # it was looked at
    assert not [t for t in texts if SECRET in t]


def test_a_drain_does_at_most_a_frame_of_work(qapp: Any) -> None:
    """A burst from the proxy thread is replayed over several frames, never in one long one."""
    from playground.proxy.exchange import Exchange
    from playground.ui.docks.traffic.feed import TrafficFeed

    feed = TrafficFeed()
    feed._timer.stop()
    ex = Exchange(
        id=1, method="POST", path="/v1/chat/completions", route="chat", url="", request_headers=[]
    )
    listener = feed.listener
    listener.on_start(ex)
    listener.on_request(ex)
    ex.http_status = 200
    ex.response_headers = [("content-type", "text/event-stream")]
    listener.on_response(ex)
    delta = (
        b'data: {"id":"c","object":"chat.completion.chunk",'
        b'"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'
    )
    for i in range(200_000):
        listener.on_chunk(ex, i / 1e6, delta)
    import time

    t0 = time.perf_counter()
    feed.drain()
    assert time.perf_counter() - t0 < 0.05
    assert not feed.queue.empty()  # the rest waits for the next frames
    entry = feed.entries[1]
    assert entry.session is not None and 0 < len(entry.session.run.chunks) < 200_000
    feed.stop()


def test_proxy_options_are_checked() -> None:
    from playground.ui.app import UsageError, parse_args

    args = parse_args(["--proxy", "http://127.0.0.1:8000/v1", "--proxy-port", "8123"])
    assert (args.proxy, args.proxy_port) == ("http://127.0.0.1:8000/v1", 8123)
    with pytest.raises(UsageError, match="--proxy"):
        parse_args(["--proxy", "127.0.0.1:8000"])
    with pytest.raises(UsageError, match="--proxy-port"):
        parse_args(["--proxy", "http://x/v1", "--proxy-port", "70000"])


def test_the_oldest_exchanges_go_past_the_limit(qapp: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from playground.proxy.exchange import Exchange
    from playground.ui.docks.traffic import feed as feed_module
    from playground.ui.docks.traffic.panel import TrafficPanel

    monkeypatch.setattr(feed_module, "KEPT", 2)
    feed = feed_module.TrafficFeed()
    feed._timer.stop()
    panel = TrafficPanel(feed)
    for n in (1, 2, 3):
        ex = Exchange(
            id=n,
            method="POST",
            path="/v1/chat/completions",
            route="chat",
            url="",
            request_headers=[],
        )
        feed.listener.on_start(ex)
        feed.listener.on_request(ex)
    while not feed.queue.empty():  # the first session's imports may take a frame's budget
        feed.drain()
    assert list(feed.entries) == [2, 3]
    assert [e.ex.id for e in panel.model.entries] == [3, 2]
    feed.stop()


def test_the_proxy_dialog_gives_its_values(qapp: Any, tmp_path: Path) -> None:
    from playground.ui.docks.traffic.dialog import ProxyDialog

    dialog = ProxyDialog("http://127.0.0.1:8000/v1")
    dialog.port.setValue(9000)
    assert dialog.values() == ("http://127.0.0.1:8000/v1", 9000, None)
    dialog.save.setText(str(tmp_path))
    assert dialog.values()[2] == tmp_path
