"""Startup: views the first frame does not show are built the moment they are needed."""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot


def test_deferred_output_widgets_are_built_on_first_use(qtbot: QtBot) -> None:
    from playground.ui.panels.route_panel import RoutePanel

    panel = RoutePanel("chat", defer_output=True)
    qtbot.addWidget(panel)
    panel.show()
    assert not panel.output_built and panel.output is None
    assert panel.built_widgets() == {}
    assert panel.stack.count() == 1 and panel.stack.currentWidget() is panel.empty
    widgets = panel.widgets  # the first use builds them, behind the empty state
    assert panel.output_built and list(widgets) == ["thinking", "answer", "structured", "tools"]
    assert panel.built_widgets() is widgets and panel.widgets is widgets
    assert panel.stack.count() == 2 and panel.stack.currentWidget() is panel.empty
    # Before any run, thinking and tool calls stay hidden, as in a panel built eagerly.
    assert not widgets["thinking"].isVisibleTo(panel) and not widgets["tools"].isVisibleTo(panel)
    eager = RoutePanel("chat")
    qtbot.addWidget(eager)
    assert eager.output_built and list(eager.widgets) == list(widgets)
    # A transcript's turn stacks them (output_column.py); a media panel has its splitter.
    assert eager.output is None and eager.output_column is not None
    assert list(eager.output_column.views) == list(widgets)
    media = RoutePanel("speech")
    qtbot.addWidget(media)
    assert media.output is not None and media.output.count() == len(media.widgets)


def test_output_widgets_activation_reaches_the_panel(qtbot: QtBot) -> None:
    from playground.ui.panels.route_panel import RoutePanel

    panel = RoutePanel("chat", defer_output=True)
    qtbot.addWidget(panel)
    got: list[int] = []
    panel.itemActivated.connect(got.append)
    panel.widgets["answer"].itemActivated.emit(7)  # type: ignore[attr-defined]
    assert got == [7]


def test_images_panel_built_lazily_still_taps_the_stream(qtbot: QtBot) -> None:
    from playground.ui.panels.route_panel import RoutePanel

    panel = RoutePanel("images", defer_output=True)
    qtbot.addWidget(panel)
    assert panel.session.chunk_tap is None
    images: Any = panel.widgets["images"]
    assert panel.session.chunk_tap == images.prefetch.feed


def test_window_builds_the_first_panels_output_in_idle_time(
    qloop: Any, sim: Any, settings: Any
) -> None:
    from playground.ui.window.shell import MainWindow

    window = MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )
    try:
        panel = window.current_panel()
        assert not panel.output_built  # the first frame shows its empty state
        window.show()
        qloop.wait_until(lambda: panel.output_built, 10)
        # A panel built after the first frame builds its output at once.
        other = window.panels["images"]
        assert other.output_built
    finally:
        window._closing = True
        qloop.run(window.shutdown(), 10)
        window.close()
        window.deleteLater()


def test_request_and_response_views_are_built_when_needed(qtbot: QtBot) -> None:
    from playground.ui.inspector.inspector import Inspector

    inspector = Inspector(defer_model=True)
    qtbot.addWidget(inspector)
    inspector.show()
    titles = [inspector.tabs.tabText(i) for i in range(inspector.tabs.count())]
    assert titles == ["Events", "Request", "Response"]
    inspector.reset()  # clearing views never built builds nothing
    assert inspector._exchange == {}
    inspector.tabs.setCurrentIndex(2)  # opening the tab builds its view, in place
    response = inspector.response_view
    assert inspector.tabs.currentWidget() is response and inspector.tabs.currentIndex() == 2
    assert response.placeholderText() == "The response status and headers appear here."
    assert 1 not in inspector._exchange
    inspector.tabs.setCurrentIndex(0)
    inspector.set_request("POST", "http://127.0.0.1:1/v1/chat/completions", {}, b"{}")
    assert inspector.tabs.currentIndex() == 0  # filling it is no tab change
    assert 1 not in inspector._exchange  # ... and builds nothing: its text waits for its tab
    inspector.tabs.setCurrentIndex(1)
    assert inspector.tabs.widget(1) is inspector._exchange[1]
    assert inspector.request_view.toPlainText().startswith("POST http://127.0.0.1:1/v1/")
    inspector.tabs.setCurrentIndex(1)  # open: a new run's request shows at once
    inspector.set_request("POST", "http://127.0.0.1:1/v1/responses", {}, b"{}")
    assert inspector._exchange[1].toPlainText().startswith("POST http://127.0.0.1:1/v1/responses")
    inspector.tabs.setCurrentIndex(0)
    assert [inspector.tabs.tabText(i) for i in range(3)] == titles
    inspector.reset()
    assert inspector.request_view.toPlainText() == ""


def test_no_arguments_means_the_parsers_defaults() -> None:
    from playground.ui import arguments

    assert vars(arguments._parser().parse_args([])) == arguments._DEFAULTS
    bare = vars(arguments.parse_args([]))
    sized = vars(arguments.parse_args(["--size", "1560x920"]))
    # The same but for whether a size was asked for: without one the remembered geometry wins.
    assert bare.pop("size_given") is False and sized.pop("size_given") is True
    assert bare == sized
    assert arguments.parse_args([]).size == (1560, 920)


def test_a_run_on_a_deferred_panel_shows_its_output(qtbot: QtBot) -> None:
    from playground.ui.panels.route_panel import RoutePanel

    panel = RoutePanel("chat", defer_output=True)
    qtbot.addWidget(panel)
    panel.show()
    panel.session.started.emit()  # a run starts before idle time built the output widgets
    assert panel.output_built and panel.stack.currentWidget() is panel.output_column
    # The run's output is in its turn of the transcript (its views show once something came).
    assert panel.output_box.isVisibleTo(panel)
    view = panel.conversation.view  # type: ignore[union-attr]
    assert view.host_block() is view.blocks[-1]
    panel._tick.stop()


def test_error_banner_builds_its_parts_with_the_first_message(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QWidget

    from playground.ui.panels.error_banner import ErrorBanner

    banner = ErrorBanner()
    qtbot.addWidget(banner)
    assert banner.findChildren(QWidget) == [] and banner.text == ""
    banner.clear()  # clearing a banner that never spoke builds nothing
    assert banner.findChildren(QWidget) == [] and banner.isHidden()
    banner.show_message("error", "HTTP 503", retry=True, retry_after=2)
    assert not banner.isHidden() and banner.text == "HTTP 503"
    assert not banner.retry.isEnabled() and banner.countdown.text() == "retry in 2 s"
    banner.clear()
    assert banner.text == "" and banner.isHidden()


def test_raw_json_view_is_built_when_its_tab_opens(qtbot: QtBot) -> None:
    import json

    from playground.ui.panels.editor import RequestEditor
    from playground.ui.panels.editor_parts import DEFAULT_PROMPTS

    editor = RequestEditor("chat")
    qtbot.addWidget(editor)
    assert editor._raw is None  # building the form built no raw view (nor an error on it)
    assert editor.body()["messages"] == []  # a conversation's message box starts empty
    editor.set_prompt(DEFAULT_PROMPTS["chat"])
    assert editor._raw is None
    body = editor.body()
    assert body["messages"][-1]["content"] == DEFAULT_PROMPTS["chat"]
    editor.set_body({**body, "n": 2})  # a capture opened before the tab ever was
    assert editor._raw is None and editor.body()["n"] == 2
    editor.tabs.setCurrentIndex(1)
    assert editor._raw is not None and editor.tabs.currentIndex() == 1
    assert json.loads(editor.raw.toPlainText()) == editor.body() and editor.body()["n"] == 2
    assert editor.raw_error.text() == ""
    editor.set_prompt("changed")  # the form still writes through to the view once it exists
    assert json.loads(editor.raw.toPlainText())["messages"][-1]["content"] == "changed"
