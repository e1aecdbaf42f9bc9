"""The window comes back as it was left: geometry, splitters, last panel, inspector columns."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QSize


def _window(settings: Any, sim: Any) -> Any:
    from playground.ui.window.shell import MainWindow

    return MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )


def _close(win: Any, qloop: Any) -> None:
    win.close()
    qloop.run(win.shutdown(), 10)
    win.deleteLater()


def test_layout_is_remembered_between_starts(
    qloop: Any, sim: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.window import remembered
    from playground.ui.window.remembered import restore_geometry

    # The offscreen screen is 800 px wide, narrower than any real one: a laptop's instead.
    monkeypatch.setattr(remembered, "screen_room", lambda _w: QSize(1366, 768))

    first = _window(settings, sim)
    first.resize(1100, 650)
    first.show()
    qloop.sleep(0.3)  # the inspector's model is built after the first frame
    first.show_panel("messages")
    first.splitter.setSizes([700, 400])
    panel = first.panels["messages"]
    panel.splitter.setSizes([300, 500])
    header = first.inspector.view.horizontalHeader()
    header.resizeSection(2, 123)  # the Type column, dragged by the user
    qloop.sleep(0.05)
    sizes, panel_sizes = first.splitter.sizes(), panel.splitter.sizes()
    first.inspector.columns.fit()  # as a resize would
    first_shown = header.sectionSize(2)
    _close(first, qloop)

    second = _window(settings, sim)
    assert restore_geometry(second)
    second.show()
    qloop.sleep(0.3)
    try:
        assert second.size().toTuple() == (1100, 650)
        assert second.current_panel().route == "messages"
        assert second.splitter.sizes() == sizes
        assert second.panels["messages"].splitter.sizes() == panel_sizes
        assert second.inspector.columns.wanted[2] == 123
        shown = second.inspector.view.horizontalHeader().sectionSize(2)
        assert shown == first_shown  # as wide as it was shown in the same-sized window
    finally:
        _close(second, qloop)


def test_a_first_start_has_nothing_to_restore(qloop: Any, sim: Any, settings: Any) -> None:
    from playground.ui.window.remembered import restore_geometry

    win = _window(settings, sim)
    try:
        assert not restore_geometry(win)
        assert win.current_panel().route == "chat"
    finally:
        _close(win, qloop)


def test_a_restored_window_fits_a_smaller_screen(
    qloop: Any, sim: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.window import remembered

    first = _window(settings, sim)
    first.resize(1500, 900)
    first.show()
    qloop.sleep(0.05)
    _close(first, qloop)
    monkeypatch.setattr(remembered, "screen_room", lambda _w: QSize(1024, 700))
    second = _window(settings, sim)
    try:
        assert remembered.restore_geometry(second)
        assert second.size().toTuple() == (1024, 700)
    finally:
        _close(second, qloop)
