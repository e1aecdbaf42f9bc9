"""Startup: what is built after the first frame is there the moment it is reached for."""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

from tests.ui.panel_helpers import with_example_prompts


def _new_window(settings: Any, sim: Any) -> Any:
    from playground.ui.window.shell import MainWindow

    return MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )


def _close(window: Any, qloop: Any) -> None:
    window._closing = True
    qloop.run(window.shutdown(), 10)
    window.close()
    window.deleteLater()


def test_docks_are_there_when_asked_for_before_any_event(
    qloop: Any, sim: Any, settings: Any
) -> None:
    window = _new_window(settings, sim)
    try:
        window.show()
        assert not window.docks_built  # nothing ran yet: no event was processed
        docks = window.docks  # ...but reaching for them builds them now
        assert docks is not None and window.docks is docks
        texts = [a.text() for a in window.file_menu.actions()]
        assert "&Save run as capture…" in texts
        assert any(a.shortcut().toString() == "Ctrl+S" for a in window.file_menu.actions())
    finally:
        _close(window, qloop)


def test_history_opens_on_first_use_and_records_a_run_started_right_away(
    qloop: Any, sim: Any, settings: Any, send_and_wait: Any
) -> None:
    window = _new_window(settings, sim)
    try:
        window.show()
        with_example_prompts(window)
        assert not window._history_opened
        panel = window.current_panel()
        panel.set_pace("instant")
        assert send_and_wait(panel) == "complete"
        assert window._history_opened and window.history is not None
        runs = window.history.list_runs("chat")
        assert runs and runs[0].status == "complete"
    finally:
        _close(window, qloop)


def test_idle_work_runs_after_the_first_paint(qloop: Any, sim: Any, settings: Any) -> None:
    window = _new_window(settings, sim)
    try:
        window.show()
        qloop.wait_until(lambda: window.painted)
        qloop.wait_until(lambda: window.docks_built and window._history_opened)
        assert window.docks.history_view is not None
    finally:
        _close(window, qloop)


def test_a_window_never_shown_still_gets_its_idle_work(qloop: Any, sim: Any, settings: Any) -> None:
    window = _new_window(settings, sim)
    try:
        qloop.wait_until(lambda: window.docks_built)
        assert not window.painted and window._history_opened
    finally:
        _close(window, qloop)


def test_models_asked_for_before_a_loop_runs_are_fetched_once_one_does(
    qloop: Any, sim: Any, settings: Any
) -> None:
    from playground.ui.window.provider_bar import ProviderBar

    bar = ProviderBar(settings)
    bar.set_simulator_url(sim.base_url)
    bar.load_models()  # no asyncio loop runs here
    assert bar.models_pending
    loaded: list[list[str]] = []
    bar.modelsLoaded.connect(loaded.append)
    qloop.do(bar.load_models)
    assert not bar.models_pending
    qloop.wait_until(lambda: bool(loaded))
    assert "sim-reasoner" in loaded[0]
    qloop.run(bar.aclose(), 5)
    bar.deleteLater()


def test_detail_pages_are_built_when_a_tab_is_opened(qtbot: QtBot) -> None:
    from playground.ui.inspector.inspector import Inspector

    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show()
    detail = inspector.detail
    assert not detail._built
    assert [detail.tabs.tabText(i) for i in range(4)] == ["Raw", "JSON", "Preview", "Findings"]
    detail.clear()  # clearing what was never built builds nothing
    assert not detail._built
    detail.tabs.setCurrentIndex(1)
    assert detail._built
    assert detail.tree.isVisibleTo(inspector)
    assert detail.tree.headerItem().text(0) == "Key"
    detail.tabs.setCurrentIndex(2)
    assert detail.preview_info.text() == "This event carries no image or audio."


def test_selecting_a_row_right_away_fills_every_page(qtbot: QtBot) -> None:
    from widgets_fixtures import capture_bytes

    from playground.protocol.stream import StreamDecoder
    from playground.ui.inspector.inspector import Inspector

    inspector = Inspector()
    qtbot.addWidget(inspector)
    decoder = StreamDecoder("auto")
    inspector.attach(decoder)
    inspector.append(list(decoder.feed(capture_bytes("chat/openai-gpt4o-text-include-usage"), 0)))
    inspector.append(list(decoder.finish(1.0)))
    assert not inspector.detail._built
    inspector.view.selectRow(1)
    assert inspector.detail._built
    assert {"id", "choices"} <= set(inspector.detail.tree_top_keys())
    assert inspector.detail.findings.count() >= 1


def test_deferred_timeline_model_shows_the_same_columns_and_works_at_once(qtbot: QtBot) -> None:
    from widgets_fixtures import capture_bytes

    from playground.protocol.stream import StreamDecoder
    from playground.ui.inspector import inspector
    from playground.ui.inspector.inspector import Inspector
    from playground.ui.inspector.timeline_model import COL_FINDINGS, COL_SUMMARY, COLUMNS

    assert inspector.COLUMNS == COLUMNS  # the stand-in's titles are the model's
    assert (inspector.COL_FINDINGS, inspector.COL_SUMMARY) == (COL_FINDINGS, COL_SUMMARY)

    def columns(widget: Any) -> list[str]:
        header = widget.view.horizontalHeader()
        titles = [widget.view.model().headerData(i, Qt.Orientation.Horizontal) for i in range(6)]
        return [titles[header.logicalIndex(v)] for v in range(6)]

    from PySide6.QtCore import Qt

    eager = Inspector()
    lazy = Inspector(defer_model=True)
    for widget in (eager, lazy):
        qtbot.addWidget(widget)
        widget.show()
    assert not lazy.model_built and lazy.count_label.text() == "0 rows"
    before = columns(lazy)
    assert before == columns(eager) and before.index("Findings") < before.index("Summary")
    widths = [lazy.view.columnWidth(i) for i in range(5)]
    decoder = StreamDecoder("auto")
    lazy.attach(decoder)  # the first run builds it
    assert lazy.model_built
    assert columns(lazy) == before and [lazy.view.columnWidth(i) for i in range(5)] == widths
    lazy.append(list(decoder.feed(capture_bytes("chat/openai-gpt4o-text-include-usage"), 0)))
    assert lazy.model.rowCount() == len(decoder.items) > 0
    lazy.view.selectRow(1)  # the real selection model is wired
    assert lazy.selected_item() == 1 and "#1" in lazy.detail.header.text()


def test_each_output_view_loads_from_its_own_module_when_first_made(qtbot: QtBot) -> None:
    import asyncio
    import types

    import playground.ui.views as widgets
    from playground.ui.views import routes

    view = routes.images_view()
    qtbot.addWidget(view)
    assert type(view).__module__ == "playground.ui.views.images_view"
    assert not hasattr(widgets, "ImagesView")  # no package-level loading by attribute
    # The standard library's asyncio is itself, never a stand-in put in sys.modules.
    assert type(asyncio) is types.ModuleType and "get_running_loop" in vars(asyncio)


def test_hidden_panels_wait_for_a_stream_and_its_quiet_time(
    qloop: Any, sim: Any, settings: Any
) -> None:
    from playground.ui.runtime.idle import QUIET_S, idle_now

    window = _new_window(settings, sim)
    try:
        window.show()
        qloop.wait_until(lambda: window.painted)
        panel = window.show_panel("chat")
        panel.set_pace("fast")
        panel.editor.set_prompt("Explain server-sent events in two short paragraphs.")
        panel.send()  # before the idle builder's first tick
        built = set(window.panels.built())
        assert qloop.run(panel.session.wait()) == "complete"
        qloop.sleep(min(0.5, QUIET_S / 2))
        assert not idle_now()
        assert set(window.panels.built()) == built  # nothing built during the run or right after
        qloop.wait_until(lambda: len(window.panels.built()) > len(built), timeout=QUIET_S + 5)
        assert idle_now()
    finally:
        _close(window, qloop)
