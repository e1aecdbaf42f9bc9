"""UndoDelete: a deleted turn put back by Ctrl+Z on the panel or the "Turn deleted" notice's Undo.

The deletes themselves are kept by ``DeleteUndo`` (protocol/conversation/undo.py). The notice,
a small bar under the thread's turns, shows after each delete and goes after ``NOTICE_MS`` or
at the thread's next other change; Ctrl+Z works as long as nothing else changed the thread.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

# The conversation model (the protocol.conversation package) loads with the first turn, not
# with the first frame, which builds every conversational panel's thread (startup time).
if TYPE_CHECKING:
    from playground.protocol.conversation.undo import DeleteUndo
    from playground.ui.conversation.thread import ConversationThread

__all__ = ["NOTICE_MS", "UndoDelete"]

NOTICE_MS = 10_000  # how long the notice stays (Ctrl+Z goes on working after it)


class UndoDelete(QObject):
    """Keeps a thread's deletes, and puts the last one back on Ctrl+Z or Undo."""

    def __init__(self, thread: ConversationThread) -> None:
        super().__init__(thread)
        self._thread = weakref.ref(thread)
        self._deletes: DeleteUndo | None = None
        self.notice = QFrame()
        self.notice.setObjectName("undoNotice")
        self.notice.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self.notice)
        row.setContentsMargins(6, 2, 2, 2)
        self.notice_label = QLabel("Turn deleted")
        row.addWidget(self.notice_label, 1)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("Put the deleted turn back where it was (Ctrl+Z)")
        self.undo_button.clicked.connect(self.undo)
        row.addWidget(self.undo_button)
        self.notice.hide()
        view = thread.view
        outer = view.layout()
        if outer is not None:  # under the turns, above the open calls' results
            outer.insertWidget(outer.indexOf(view.scroller) + 1, self.notice)  # type: ignore[attr-defined]
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.notice.hide)
        # On the panel, as Ctrl+N is: only the shown panel's is live. A text box with the focus
        # takes Ctrl+Z for its own typing first (Qt's shortcut override).
        shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Undo), thread.panel)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(self.undo)
        thread.changed.connect(self._changed)
        thread.replaced.connect(self._forget)

    @property
    def owner(self) -> ConversationThread:
        thread = self._thread()
        assert thread is not None, "the undo outlived its thread"
        return thread

    @property
    def deletes(self) -> DeleteUndo:
        if self._deletes is None:
            from playground.protocol.conversation.undo import DeleteUndo

            self._deletes = DeleteUndo()
        return self._deletes

    def record(self, index: int) -> None:
        """Turn ``index`` is about to be deleted: kept, and the notice shown."""
        thread = self.owner
        self.deletes.record(thread.turns, index, thread.live)
        self.notice.show()
        self._timer.start(NOTICE_MS)

    def undo(self) -> None:
        thread = self.owner
        if self._deletes is None or thread.panel.session.is_running:
            return  # nothing deleted; or a run's answer joins the turns it was sent with
        restored = self._deletes.undo(thread.turns)
        if restored is None:
            self._hide()
            return
        thread.turns, thread.live = restored
        if not self.deletes.current(thread.turns):
            self._hide()
        thread.refresh()

    def _changed(self) -> None:
        thread = self.owner
        if self._deletes is None or not len(self._deletes):
            return
        if not self.deletes.current(thread.turns):
            self._forget()  # another change: the places the deletes had mean nothing now
        elif not self.notice.isHidden():
            thread.view.show()  # the last turn deleted: the notice stays in sight

    def _forget(self) -> None:
        if self._deletes is not None:
            self._deletes.forget()
        self._hide()

    def _hide(self) -> None:
        self._timer.stop()
        self.notice.hide()
