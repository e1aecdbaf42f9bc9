"""The timeline table's own painting: the pixels Qt's table would draw, without asking data()."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTableView
from pytestqt.qtbot import QtBot

from playground.protocol.stream import StreamDecoder
from playground.ui.inspector.inspector import Inspector
from playground.ui.inspector.timeline_view import TimelineView


def _stream() -> bytes:
    parts = [b": keep-alive\n\n"]
    for i in range(60):
        delta = {"content": f" word{i} and a much longer piece of text that must be elided"}
        chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
        parts.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        if i == 4:
            parts.append(b"data: {bad json\n\n")  # a finding: the error icon and a count
    return b"".join(parts)


def _filled(qtbot: QtBot) -> Inspector:
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(760, 520)
    inspector.show()
    qtbot.waitExposed(inspector)
    decoder = StreamDecoder("chat")
    inspector.attach(decoder)
    inspector.append(list(decoder.feed(_stream(), 0.0)))
    inspector.view.selectRow(3)
    inspector.view.verticalScrollBar().setValue(0)
    return inspector


def _stock_twin(qtbot: QtBot, view: TimelineView) -> QTableView:
    """Qt's own table on the same model, selection, row height and column layout."""
    twin = QTableView()
    qtbot.addWidget(twin)
    twin.setModel(view.model())
    twin.setSelectionModel(view.selectionModel())
    for setting in ("alternatingRowColors", "showGrid", "wordWrap"):
        getattr(twin, "set" + setting[0].upper() + setting[1:])(getattr(view, setting)())
    twin.setTextElideMode(view.textElideMode())
    twin.setHorizontalScrollBarPolicy(view.horizontalScrollBarPolicy())
    twin.setVerticalScrollBarPolicy(view.verticalScrollBarPolicy())
    twin.setVerticalScrollMode(view.verticalScrollMode())
    twin.setHorizontalScrollMode(view.horizontalScrollMode())
    twin.verticalHeader().hide()
    twin.verticalHeader().setDefaultSectionSize(view.verticalHeader().defaultSectionSize())
    ours, theirs = view.horizontalHeader(), twin.horizontalHeader()
    theirs.setStretchLastSection(ours.stretchLastSection())
    for col in range(ours.count()):
        twin.setColumnWidth(col, ours.sectionSize(col))
    for visual in range(ours.count()):
        logical = ours.logicalIndex(visual)
        theirs.moveSection(theirs.visualIndex(logical), visual)
    twin.resize(view.size())
    twin.show()
    qtbot.waitExposed(twin)
    twin.horizontalScrollBar().setValue(view.horizontalScrollBar().value())
    twin.verticalScrollBar().setValue(view.verticalScrollBar().value())
    return twin


def _cells(widget: QTableView) -> QImage:
    return widget.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def _differing(a: QImage, b: QImage) -> int:
    assert a.size() == b.size()
    return sum(a.pixel(x, y) != b.pixel(x, y) for y in range(a.height()) for x in range(a.width()))


@pytest.mark.parametrize("scrolled", [False, True])
def test_timeline_paints_the_pixels_of_qts_own_table(qtbot: QtBot, scrolled: bool) -> None:
    inspector = _filled(qtbot)
    view = inspector.view
    if scrolled:  # two rows and a half down: the first row shown is cut
        view.verticalScrollBar().setValue(view.verticalHeader().defaultSectionSize() * 5 // 2)
    twin = _stock_twin(qtbot, view)
    ours, theirs = _cells(view), _cells(twin)
    # The same rows, stripes, selection, dimmed comment, icon and elided texts: only the count
    # beside the icon may sit a pixel or two apart.
    assert _differing(ours, theirs) < ours.width() * ours.height() // 500


def test_timeline_paints_without_asking_data(qtbot: QtBot) -> None:
    inspector = _filled(qtbot)
    calls = 0
    model = inspector.filter
    original = type(model).data

    def counting(self: object, index: QModelIndex, role: int = 0) -> object:
        nonlocal calls
        calls += 1
        return original(model, index, role)

    type(model).data = counting  # type: ignore[method-assign, assignment]
    try:
        inspector.view.viewport().repaint()
    finally:
        type(model).data = original  # type: ignore[method-assign]
    assert calls == 0
    # And what it painted is the table: the selected row in the highlight colour.
    image = _cells(inspector.view)
    row_height = inspector.view.verticalHeader().defaultSectionSize()
    highlight = inspector.view.palette().color(inspector.view.palette().ColorRole.Highlight)
    y = 3 * row_height + 1
    assert any(image.pixelColor(x, y) == highlight for x in range(image.width()))


def _on_screen(inspector: Inspector) -> QImage:
    """What the window's backing store holds now (``grab`` would paint the widget afresh)."""
    view = inspector.view.viewport()
    shot = inspector.screen().grabWindow(inspector.winId()).toImage()
    corner = view.mapTo(inspector, view.rect().topLeft())
    ratio = shot.width() / max(1, inspector.width())
    return shot.copy(
        int(corner.x() * ratio),
        int(corner.y() * ratio),
        int(view.width() * ratio),
        int(view.height() * ratio),
    ).convertToFormat(QImage.Format.Format_RGB32)


@pytest.mark.parametrize("follow", [True, False])
def test_rows_appended_in_batches_show_as_a_whole_repaint_would(qtbot: QtBot, follow: bool) -> None:
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(760, 520)
    inspector.show()
    qtbot.waitExposed(inspector)
    inspector.follow.setChecked(follow)
    decoder = StreamDecoder("chat")
    inspector.attach(decoder)
    painted: list[int] = []
    original = TimelineView.paintEvent

    def recording(self: TimelineView, event: Any) -> None:
        rows = self.model().rowCount() * self.verticalHeader().defaultSectionSize()
        if rows > 2 * self.viewport().height():  # the rows fill the table, and more
            painted.append(event.rect().height())
        original(self, event)

    data = _stream()
    cuts = [*range(0, len(data), 700), len(data)]
    TimelineView.paintEvent = recording  # type: ignore[method-assign]
    try:
        for start, stop in itertools.pairwise(cuts):
            inspector.append(list(decoder.feed(data[start:stop], 0.0)))
            qtbot.wait(5)  # the layout and paint each batch gets in the window
    finally:
        TimelineView.paintEvent = original  # type: ignore[method-assign]
    view = inspector.view
    assert view.model().rowCount() > 40
    at_end = view.verticalScrollBar().value() == view.verticalScrollBar().maximum()
    assert at_end == follow
    before = _on_screen(inspector)
    view.viewport().repaint()
    assert _differing(before, _on_screen(inspector)) == 0
    # Once the rows fill the table, a batch repaints only what it uncovered (following) or
    # nothing (the new rows are below), not every row: one whole repaint at most (the scroll
    # bar coming narrows the table), where a stock QTableView repaints it all every batch.
    assert len(cuts) > 10
    assert len([height for height in painted if height >= view.viewport().height()]) <= 1
