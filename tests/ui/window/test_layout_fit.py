"""The window at laptop sizes: minimum at most 960x600, nothing over anything, before and after."""

from __future__ import annotations

from typing import Any

import pytest

from playground.protocol.requests import ROUTE_NAMES
from playground.ui.kit.layout_audit import audit_layout

SIZES = ((1024, 700), (1280, 720), (1920, 1080))


def _squeezed(top: Any) -> list[str]:
    """Visible widgets given less than their minimum size hint: drawn cut (or over a sibling)."""
    from PySide6.QtWidgets import QAbstractScrollArea, QScrollBar, QWidget

    found = []
    for widget in top.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow() or isinstance(widget, QScrollBar):
            continue
        parent = widget.parentWidget()
        # A scroll area's content may be larger than the viewport: that is what it scrolls.
        if parent is not None and isinstance(parent.parentWidget(), QAbstractScrollArea):
            continue
        hint = widget.minimumSizeHint().expandedTo(widget.minimumSize())
        if widget.width() + 1 < hint.width():
            said = getattr(widget, "text", None)
            what = f" {said()[:40]!r}" if callable(said) else ""
            found.append(f"{type(widget).__name__}{what} {widget.width()} < {hint.width()}")
    return found


def _check_sizes(window: Any, qloop: Any, routes: tuple[str, ...]) -> None:
    for width, height in SIZES:
        window.resize(width, height)
        for route in routes:
            window.show_panel(route).ensure_output()
            qloop.sleep(0.05)
            assert window.size().toTuple() == (width, height), route
            layout = audit_layout(window)
            assert layout["overlaps"] == [], (route, width, layout["overlaps"])
            assert _squeezed(window) == [], (route, width)


def test_minimum_size_fits_a_small_laptop(window: Any, qloop: Any) -> None:
    for route in ROUTE_NAMES:
        window.show_panel(route).ensure_output()
        qloop.sleep(0.02)
        layout = audit_layout(window)
        assert layout["min_width"] <= 960, route
        assert layout["min_height"] <= 600, route
    window.resize(960, 600)
    qloop.sleep(0.05)
    assert window.size().toTuple() == (960, 600)


def test_signed_thinking_keeps_the_minimum_size(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("messages")
    panel.editor.thinking.setValue(1024)  # the simulator signs its thinking
    assert send_and_wait(panel, 60) == "complete"
    assert panel.views["thinking"].note.text().startswith("Signed reasoning")
    layout = audit_layout(window)
    assert layout["min_width"] <= 960 and layout["min_height"] <= 600
    window.resize(960, 600)
    qloop.sleep(0.05)
    assert window.size().toTuple() == (960, 600)


def test_no_overlaps_at_laptop_and_full_sizes_before_and_after_runs(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    _check_sizes(window, qloop, ROUTE_NAMES)
    window.resize(1024, 700)
    for route in ROUTE_NAMES:
        panel = window.show_panel(route)
        if route in ("chat", "responses", "messages"):
            panel.editor.set_prompt("Write a short list about streaming")
        assert send_and_wait(panel, 60) in ("complete", "incomplete"), route
    _check_sizes(window, qloop, ROUTE_NAMES)


@pytest.mark.parametrize("width", [1024, 1920])
def test_history_dock_never_widens_the_window(window: Any, qloop: Any, width: int) -> None:
    window.resize(width, 700)
    qloop.sleep(0.05)
    window.docks.show("history", True)
    qloop.sleep(0.1)
    assert window.docks.dock("history").isVisible()
    assert window.size().toTuple() == (width, 700)  # it was widened to 1333 and stayed so
    assert audit_layout(window)["overlaps"] == []
    assert _squeezed(window) == []


def test_collapsed_thinking_takes_one_line(window: Any, qloop: Any, send_and_wait: Any) -> None:
    window.resize(1280, 720)
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    thinking = panel.views["thinking"]
    assert thinking.isVisible()
    thinking.set_expanded(False)
    qloop.sleep(0.05)
    line = thinking.toggle.sizeHint().height()
    assert thinking.height() <= line + 6
    # In the transcript the answer is as tall as its text (the column scrolls as one).
    answer = panel.views["answer"]
    assert answer.height() >= answer.pane(0).text.document().size().height()
    thinking.set_expanded(True)
    qloop.sleep(0.05)
    # Open again, it shows its text: as tall as the text, up to its cap in the transcript.
    from playground.ui.conversation.output_column import CAPS, document_height

    assert thinking.text.height() >= min(document_height(thinking.text), CAPS["thinking"]) - 2
    assert thinking.height() > line + thinking.text.height() - 2


def _cut_at_the_right(panel: Any) -> list[str]:
    """The form's visible widgets whose right edge lies past its scroll area's viewport: the
    area has no sideways bar, so what is past it is never seen."""
    from PySide6.QtCore import QPoint
    from PySide6.QtWidgets import QWidget

    editor = panel.editor
    viewport = editor.parentWidget()
    found = []
    for widget in [editor, *editor.findChildren(QWidget)]:
        if not widget.isVisible() or widget.isWindow():
            continue
        right = widget.mapTo(viewport, QPoint(widget.width(), 0)).x()
        if right > viewport.width() + 1:
            said = getattr(widget, "text", None)
            what = f" {said()[:30]!r}" if callable(said) else ""
            found.append(f"{type(widget).__name__}{what} ends at {right} > {viewport.width()}")
    return found


@pytest.mark.parametrize("size", [None, *SIZES])
def test_no_form_is_cut_at_its_right_edge(window: Any, qloop: Any, size: Any) -> None:
    if size is not None:
        window.resize(*size)  # None: the size a fresh start opens at
    for route in ROUTE_NAMES:
        panel = window.show_panel(route)
        panel.ensure_output()
        qloop.sleep(0.05)
        assert _cut_at_the_right(panel) == [], (route, size)
    images = window.show_panel("images")
    qloop.sleep(0.05)
    slot = images.editor.image_input
    assert slot.isVisible()
    assert _cut_at_the_right(images) == []
