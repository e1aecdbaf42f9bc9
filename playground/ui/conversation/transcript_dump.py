"""The headless dump's ``transcript``: where the transcript and each of its turns are on screen.

Rectangles are ``[x, y, w, h]`` in the window's coordinates. A turn's is the part of it the
transcript's viewport shows (a turn scrolled out of view is 0 high at the viewport's edge), so
every turn's rectangle lies inside the transcript's, as the eye sees it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPoint, QRect

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from playground.ui.conversation.thread import ConversationThread

__all__ = ["transcript_dump", "window_rect"]


def window_rect(widget: QWidget, clip: QRect | None = None) -> list[int]:
    """``widget``'s rectangle in its window's coordinates (within ``clip``, if given)."""
    window = widget.window()
    top_left = widget.mapTo(window, QPoint(0, 0))
    rect = QRect(top_left, widget.size())
    if clip is not None:
        shown = rect.intersected(clip)
        if shown.isEmpty():  # out of view: a line at the nearest edge of the viewport
            y = clip.top() if rect.bottom() < clip.top() else clip.bottom() + 1
            shown = QRect(rect.left(), y, rect.width(), 0)
        rect = shown
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def transcript_dump(
    column: QWidget, thread: ConversationThread, *, running: bool
) -> dict[str, Any]:
    """``{"rect", "turns": [{"role", "rect", "state"}]}`` of a transcript (``column``: the
    transcript with its composer); the run's turn is the last one."""
    view = thread.view
    viewport = view.scroller.viewport()
    clip = QRect(*window_rect(viewport))
    host = view.host_block()
    turns = []
    for block in view.blocks:
        state = thread.turn_state(running=running) if block is host else "done"
        turns.append({"role": block.turn.role, "rect": window_rect(block, clip), "state": state})
    return {"rect": window_rect(column), "turns": turns}
