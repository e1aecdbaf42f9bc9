"""SteadyTabs: a layout request from inside a page repaints the page's changed widget only, while
a new tab title, a page's larger minimum size and a resize still lay the tabs out."""

from __future__ import annotations

from typing import Any

from panel_helpers import EventCounter
from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from playground.ui.kit.steady_tabs import SteadyTabs


def _tabs_with_a_page(kind: type[QTabWidget]) -> tuple[QWidget, QTabWidget, QLabel, QPushButton]:
    window = QWidget()
    outer = QVBoxLayout(window)
    tabs = kind()
    tabs.setDocumentMode(True)
    page = QWidget()
    inner = QVBoxLayout(page)
    label, button = QLabel("complete"), QPushButton("Send")
    inner.addWidget(label)
    inner.addWidget(button)
    tabs.addTab(page, "Chat")
    tabs.addTab(QWidget(), "Images")
    outer.addWidget(tabs)
    window.resize(400, 300)
    window.show()
    return window, tabs, label, button


def _sibling_paints_after_new_text(qapp: Any, label: QLabel, sibling: QWidget) -> int:
    """A label's longer text: its size hint changes, so its layout asks the tabs above it."""
    qapp.processEvents()
    paints = EventCounter(QEvent.Type.Paint)
    sibling.installEventFilter(paints)
    for n in range(3):
        label.setText("incomplete after the stream was cut" + "." * n)
        qapp.processEvents()
    sibling.removeEventFilter(paints)
    return int(paints.count)


def test_a_page_layout_request_repaints_no_sibling(qapp: Any) -> None:
    window, _, label, button = _tabs_with_a_page(QTabWidget)
    try:
        assert _sibling_paints_after_new_text(qapp, label, button) > 0  # what SteadyTabs avoids
    finally:
        window.close()
    window, _, label, button = _tabs_with_a_page(SteadyTabs)
    try:
        assert _sibling_paints_after_new_text(qapp, label, button) == 0
        assert label.text().startswith("incomplete")
    finally:
        window.close()


def test_titles_minimum_sizes_and_resizes_still_lay_the_tabs_out(qapp: Any) -> None:
    window, tabs, _, button = _tabs_with_a_page(SteadyTabs)
    try:
        qapp.processEvents()
        stack = tabs.currentWidget().parentWidget()
        assert stack is not None
        top = stack.y()
        # Taller tabs (a larger icon): the bar's hint changes, and the pages move down under it.
        icon = QPixmap(48, 48)
        icon.fill()
        tabs.setTabIcon(1, QIcon(icon))
        tabs.setIconSize(QSize(48, 48))
        qapp.processEvents()
        assert stack.y() > top and stack.y() >= tabs.tabBar().height()
        # A page that needs more room: the window's layout hears of it through the tabs.
        before = window.minimumSizeHint().height()
        button.setMinimumHeight(400)
        qapp.processEvents()
        assert tabs.minimumSizeHint().height() >= 400
        assert window.minimumSizeHint().height() > before
        assert window.height() >= 400  # the top-level grew to its new minimum
        window.resize(window.width() + 200, window.height())
        qapp.processEvents()
        assert tabs.currentWidget().width() == tabs.width()
    finally:
        window.close()
