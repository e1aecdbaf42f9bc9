"""An editor opened in a long thread (Edit on a turn at the viewport's foot, near the top or the
last turn; Insert after a turn) is scrolled into the thread's view with its Save and Cancel
buttons, on the chat, responses and messages panels; Insert's new editor has the focus."""

from __future__ import annotations

from typing import Any

import pytest
from panel_helpers import sim_panel
from PySide6.QtCore import QPoint, QRect

from playground.protocol.conversation import Turn

ROUTES = ("chat", "responses", "messages")
LONG = "\n\n".join(f"Paragraph {n} of a long answer, with words enough to wrap." for n in range(8))


def _long_thread() -> list[Turn]:
    turns: list[Turn] = []
    for n in range(6):
        turns += [Turn.of("user", f"Question {n}?"), Turn.of("assistant", LONG)]
    turns[-1] = Turn.of("assistant", "Fine.")  # a short last turn: its editor makes it grow
    return turns


def _panel(route: str, sim: Any, qtbot: Any) -> Any:
    panel = sim_panel(route, sim, pace="instant")
    qtbot.addWidget(panel)
    panel.conversation.restore(_long_thread())
    view = panel.conversation.view
    bar = view.scroller.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    return panel


def _in_viewport(view: Any, widget: Any) -> bool:
    viewport = view.scroller.viewport()
    rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
    return bool(widget.isVisible() and viewport.rect().contains(rect))


def _buttons_shown(view: Any, editor: Any) -> bool:
    return _in_viewport(view, editor.save_button) and _in_viewport(view, editor.cancel_button)


def _settled(qtbot: Any, view: Any, editor: Any) -> None:
    """The buttons come into view, and stay there once the layouts have run."""
    qtbot.waitUntil(lambda: _buttons_shown(view, editor))
    qtbot.wait(50)
    assert _buttons_shown(view, editor)


@pytest.mark.parametrize("route", ROUTES)
def test_edit_on_a_turn_at_the_viewports_foot_near_the_top_shows_save_and_cancel(
    route: str, sim: Any, qtbot: Any
) -> None:
    panel = _panel(route, sim, qtbot)
    view = panel.conversation.view
    block = view.blocks[2]  # the second question, below a long answer
    # Scrolled so the turn's head (its ✎) is the last thing the viewport shows.
    bar = view.scroller.verticalScrollBar()
    head = block.edit_button.mapTo(view.body, QPoint(0, block.edit_button.height()))
    bar.setValue(head.y() - view.scroller.viewport().height())
    assert _in_viewport(view, block.edit_button)
    block.edit_button.click()
    editor = block.editor
    assert editor is not None
    _settled(qtbot, view, editor)
    assert _in_viewport(view, block.edit_button) or editor.height() > bar.pageStep()


@pytest.mark.parametrize("route", ROUTES)
def test_edit_on_the_last_turn_shows_save_and_cancel(route: str, sim: Any, qtbot: Any) -> None:
    panel = _panel(route, sim, qtbot)
    view = panel.conversation.view
    block = view.blocks[-1]
    block.edit_button.click()
    assert block.editor is not None
    _settled(qtbot, view, block.editor)


@pytest.mark.parametrize("route", ROUTES)
def test_insert_shows_and_focuses_the_new_editor(route: str, sim: Any, qtbot: Any) -> None:
    panel = _panel(route, sim, qtbot)
    panel.activateWindow()
    view = panel.conversation.view
    for index in (len(view.blocks) - 1, 1):  # after the last turn, then near the top
        actions = view.blocks[index].insert_menu.actions()
        actions[2].trigger()  # "User turn after"
        draft = view.draft
        assert draft is not None
        _settled(qtbot, view, draft)
        assert _in_viewport(view, draft.edit)
        qtbot.waitUntil(draft.edit.hasFocus)
        draft.cancel_button.click()


def test_an_editor_taller_than_the_viewport_shows_its_buttons(sim: Any, qtbot: Any) -> None:
    panel = _panel("chat", sim, qtbot)
    view = panel.conversation.view
    # A short window: the transcript's viewport under 100 px (the composer keeps its height).
    panel.resize(panel.width(), panel.height() - (view.scroller.viewport().height() - 90))
    bar = view.scroller.verticalScrollBar()
    qtbot.waitUntil(lambda: view.scroller.viewport().height() < 100)
    bar.setValue(0)
    block = view.blocks[2]
    block.edit_button.click()
    assert block.editor is not None
    assert block.editor.sizeHint().height() > bar.pageStep()
    _settled(qtbot, view, block.editor)
