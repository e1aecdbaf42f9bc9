"""The Conversations dock: the kept conversations, searched over every turn, opened, renamed,
deleted, and each one's runs, whose captures the history reopens, exports and bundles.

The dock's widget knows no window: it reads a ``ConversationStore`` (runs/conversations.py)
and asks its owner to open a conversation (``openRequested``) or to show one of its runs
(``runRequested``).
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

__all__ = ["ConversationsView"]

SEARCH_MS = 150  # the list follows typing once it pauses, not on every key
_ID_ROLE = Qt.ItemDataRole.UserRole


def _when(stamp: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp[:19]
    return moment.astimezone().strftime("%d %b %H:%M")


def _started(run_id: str) -> str:
    """When a run began, read from its history id (``<UTC stamp>-<route>-<random>``)."""
    stamp = run_id.partition("-")[0]
    try:
        moment = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%S%f").replace(tzinfo=datetime.UTC)
    except ValueError:
        return run_id
    return moment.astimezone().strftime("%d %b %H:%M:%S")


class ConversationsView(QWidget):
    """The conversations of the chat, responses and messages panels, most recent first.

    ``openRequested(id)`` asks the owner to open one in its panel; ``runRequested(run_id)`` to
    show one of its runs in the history (reopen, export, bug report). ``interactive`` False
    (headless, tests) never opens a dialog.
    """

    openRequested = Signal(str)
    runRequested = Signal(str)

    def __init__(self, store: Any, parent: QWidget | None = None, *, interactive: bool = True):
        super().__init__(parent)
        self.store = store
        self.interactive = interactive
        self.message = ""
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search every turn…")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["title", "route", "model", "turns", "last activity"])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)  # the title takes the rest
        for column in range(1, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemDoubleClicked.connect(lambda _item, _col: self.open_selected())
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.runs = QTreeWidget()
        self.runs.setHeaderLabels(["started", "status", "capture"])
        self.runs.setRootIsDecorated(False)
        self.runs.itemDoubleClicked.connect(lambda _item, _col: self.show_run())
        self.runs.itemSelectionChanged.connect(self._selection_changed)
        self.empty = QLabel(
            "No conversations yet. Every conversation on the Chat, Responses and Messages "
            "panels is kept here as it changes."
        )
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the conversation in its panel (double-click)")
        self.open_button.clicked.connect(lambda: self.open_selected())
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(lambda: self.rename())
        self.delete_button = QPushButton("Delete")
        self.delete_button.clicked.connect(lambda: self.delete())
        self.run_button = QPushButton("Show run in History")
        self.run_button.setToolTip(
            "Select the run in the History dock: reopen it in the inspector, export it, "
            "save its capture or a bug report (double-click a run)"
        )
        self.run_button.clicked.connect(lambda: self.show_run())
        buttons = QHBoxLayout()
        for button in (self.open_button, self.rename_button, self.delete_button):
            buttons.addWidget(button)
        runs_box = QWidget()
        runs_layout = QVBoxLayout(runs_box)
        runs_layout.setContentsMargins(0, 0, 0, 0)
        runs_layout.addWidget(QLabel("Its runs"))
        runs_layout.addWidget(self.runs, 1)
        runs_layout.addWidget(self.run_button)
        split = QSplitter(Qt.Orientation.Vertical)
        split.setChildrenCollapsible(False)
        split.addWidget(self.tree)
        split.addWidget(runs_box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search)
        layout.addWidget(split, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addWidget(self.status)
        self.split = split
        self.refresh()

    def sizeHint(self) -> QSize:
        # Room for the five columns beside the panels on a wide screen; on a narrow one the
        # dock goes below them instead (window/dock_host.py).
        return QSize(440, super().sizeHint().height())

    # ---- listing -----------------------------------------------------------------------------
    def refresh(self) -> None:
        selected = self.selected_id()
        self.tree.clear()
        rows = []
        try:
            rows = self.store.list(self.search.text())
        except OSError as exc:
            self._say(f"The conversations cannot be listed ({exc.strerror or exc}).")
        set_aside = getattr(self.store, "messages", None)
        if set_aside:  # a damaged file was set aside: said here, the others listed
            self._say(" ".join(set_aside))
            set_aside.clear()
        for row in rows:
            item = QTreeWidgetItem(
                [row.title, row.route, row.model, str(row.turns), _when(row.updated)]
            )
            item.setData(0, _ID_ROLE, row.id)
            item.setToolTip(0, row.title)
            item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.tree.addTopLevelItem(item)
            if row.id == selected:
                item.setSelected(True)
        searching = bool(self.search.text().strip())
        self.empty.setText(
            "No conversation holds those words."
            if searching
            else "No conversations yet. Every conversation on the Chat, Responses and Messages "
            "panels is kept here as it changes."
        )
        self.empty.setVisible(not rows)
        self.split.setVisible(bool(rows))
        self._selection_changed()

    def selected_id(self) -> str | None:
        items = self.tree.selectedItems()
        value = items[0].data(0, _ID_ROLE) if items else None
        return str(value) if value else None

    def select(self, conversation_id: str) -> bool:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.data(0, _ID_ROLE) == conversation_id:
                self.tree.setCurrentItem(item)
                return True
        return False

    def ids(self) -> list[str]:
        """The listed conversations' ids, in the list's order."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None:
                out.append(str(item.data(0, _ID_ROLE)))
        return out

    def _selection_changed(self) -> None:
        conversation_id = self.selected_id()
        for button in (self.open_button, self.rename_button, self.delete_button):
            button.setEnabled(conversation_id is not None)
        if self.sender() is not self.runs:
            self._list_runs(conversation_id)
        self.run_button.setEnabled(bool(self.runs.selectedItems()))

    def _list_runs(self, conversation_id: str | None) -> None:
        self.runs.clear()
        if conversation_id is None:
            return
        try:
            saved = self.store.load(conversation_id)
        except Exception as exc:  # ConversationError: a file gone or damaged since listed
            self._say(str(exc))
            return
        for run in reversed(saved.runs):
            item = QTreeWidgetItem([_started(run.id), run.status or "", Path(run.capture).name])
            item.setData(0, _ID_ROLE, run.id)
            item.setToolTip(0, run.id)
            item.setToolTip(2, run.capture)
            self.runs.addTopLevelItem(item)
        for column in range(2):
            self.runs.resizeColumnToContents(column)

    def _say(self, message: str) -> None:
        self.message = message
        self.status.setText(message)

    # ---- actions -----------------------------------------------------------------------------
    def open_selected(self, conversation_id: str | None = None) -> None:
        conversation_id = conversation_id or self.selected_id()
        if conversation_id is not None:
            self.openRequested.emit(conversation_id)

    def show_run(self, run_id: str | None = None) -> None:
        if run_id is None:
            items = self.runs.selectedItems()
            run_id = str(items[0].data(0, _ID_ROLE)) if items else None
        if run_id:
            self.runRequested.emit(run_id)

    def rename(self, title: str | None = None) -> None:
        conversation_id = self.selected_id()
        if conversation_id is None:
            return
        if title is None:
            if not self.interactive:
                return
            current = self.tree.selectedItems()[0].text(0)
            title, ok = QInputDialog.getText(
                self, "Rename the conversation", "Title:", text=current
            )
            if not ok:
                return
        try:
            self.store.rename(conversation_id, title)
        except Exception as exc:  # OSError, ConversationError: one sentence
            self._say(f"The conversation was not renamed: {exc}")
            return
        self.refresh()

    def delete(self) -> None:
        conversation_id = self.selected_id()
        if conversation_id is None:
            return
        if self.interactive:
            answer = QMessageBox.question(
                self,
                "Delete the conversation?",
                "Delete this conversation? Its runs stay in the History.",
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        try:
            self.store.delete(conversation_id)
        except OSError as exc:
            self._say(f"The conversation was not deleted: {exc.strerror or exc}.")
            return
        self.refresh()
