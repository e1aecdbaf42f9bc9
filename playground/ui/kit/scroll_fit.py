"""A vertical scroll area that is never narrower than its content's minimum, as that changes.

A form in a scroll area without a sideways bar is cut at its right edge when the area is
narrower than the form's minimum; a minimum taken once, when the form was built, went stale
as the Images form grew its edit-image row later (its Clear button and fields ran off).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QScrollArea

__all__ = ["fit_content_width"]


class _Follower(QObject):
    def __init__(self, scroll: QScrollArea) -> None:
        super().__init__(scroll)
        self.scroll = scroll

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.fit()
        return False

    def fit(self) -> None:
        content = self.scroll.widget()
        if content is None:
            return
        bar = self.scroll.verticalScrollBar().sizeHint().width()
        width = content.minimumSizeHint().expandedTo(content.minimumSize()).width() + bar
        if width != self.scroll.minimumWidth():
            self.scroll.setMinimumWidth(width)


def fit_content_width(scroll: QScrollArea) -> None:
    """Keep ``scroll``'s minimum width at its widget's minimum plus the vertical bar, now and
    whenever the widget's layout changes."""
    follower = _Follower(scroll)
    content = scroll.widget()
    if content is not None:
        content.installEventFilter(follower)
    follower.fit()
