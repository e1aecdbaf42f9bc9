"""EditorInView: a turn's editor just opened (Edit, Insert) scrolled into the thread's view.

An editor added to the thread's column has no place until the layouts have run: asking the
scroll area to show it at once showed where it was not yet (Insert scrolled to the top, away
from the new editor), and an Edit opened on a turn at the viewport's foot left Save and Cancel
below it. So the editor is shown once the pending layouts have run, and again as the column's
height settles (a block grows by the editor, a parked text comes back), until the user scrolls
or a short while has passed: a streaming answer below must not pull the view back later.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from playground.ui.conversation.thread_view import ThreadView
    from playground.ui.conversation.turn_widgets import TurnEditor

__all__ = ["SETTLE_MS", "EditorInView"]

SETTLE_MS = 600  # how long a range change still brings the editor back into view
MARGIN = 6  # room kept around the editor's buttons at the viewport's edge


class EditorInView(QObject):
    """Keeps the last editor the view opened inside its viewport while its layout settles."""

    def __init__(self, view: ThreadView) -> None:
        super().__init__(view)
        self._view = weakref.ref(view)
        self._editor: weakref.ref[TurnEditor] | None = None
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.timeout.connect(self._forget)
        bar = view.scroller.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        # A scroll the user makes (the bar, the wheel, the keys), not a range's clamp or ours.
        bar.actionTriggered.connect(self._scrolled)

    def reveal(self, editor: TurnEditor) -> None:
        """Show ``editor`` whole (at least its Save and Cancel) and give its text the focus."""
        self._editor = weakref.ref(editor)
        # Saved or cancelled, it goes: its Python wrapper may outlive it, so it is forgotten.
        editor.destroyed.connect(lambda _=None, gone=self._editor: self._forget(gone))
        self._settle.start(SETTLE_MS)
        # After the layouts posted by adding it: at once its geometry is still (0, 0).
        QTimer.singleShot(0, self, self._placed_then_apply)

    def _forget(self, gone: weakref.ref[TurnEditor] | None = None) -> None:
        """No editor to keep in view (``gone``: only if it is still that one)."""
        if gone is None or self._editor is gone:
            self._editor = None

    def _range_changed(self, _low: int, _high: int) -> None:
        if self._editor is not None:
            self._apply()

    def _scrolled(self, _action: int) -> None:
        self._editor = None  # the user scrolled: the view is theirs again

    def _placed_then_apply(self) -> None:
        # Every layout between the editor and the column run first, so its geometry is true
        # (not from the range's signal: that comes from inside a layout pass).
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        if self._apply():  # the focus once: later passes must not take it back from elsewhere
            editor = self._editor() if self._editor is not None else None
            if editor is not None and not editor.edit.hasFocus():
                editor.edit.setFocus()

    def _apply(self) -> bool:
        """The editor scrolled into view; False if there is none to show."""
        view = self._view()
        editor = self._editor() if self._editor is not None else None
        if view is None or editor is None or not editor.isVisible():
            return False
        scroller = view.scroller
        scroller.ensureWidgetVisible(editor, 0, MARGIN)
        # Taller than the viewport: the buttons under the text are what must be seen.
        scroller.ensureWidgetVisible(_buttons_row(editor), 0, MARGIN)
        return True


def _buttons_row(editor: TurnEditor) -> QWidget:
    """The lower of Save and Cancel (one row: either shows both)."""
    save, cancel = editor.save_button, editor.cancel_button
    return save if save.geometry().bottom() >= cancel.geometry().bottom() else cancel
