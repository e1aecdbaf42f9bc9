"""TurnBlock: one turn of a thread as the thread pane shows it, with its actions.

Its role (an accent at its left) and its actions (Edit, Insert, Regenerate, Delete), then its
parts, each kind by the block its declaration names (protocol/conversation/parts.py; the built-in
ones in part_blocks.py). ``ThreadView`` (thread_view.py beside this module) lays the blocks out
and says what the user asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontDatabase, QKeyEvent, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QSizePolicy,
    QStyleOptionToolButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.ui.kit.elided_label import ElidedLabel
from playground.ui.kit.theme import tint

if TYPE_CHECKING:
    from collections.abc import Callable

    from playground.protocol.conversation import Role, Turn
    from playground.ui.conversation.parking import ParkedText
    from playground.ui.conversation.thread_view import ThreadView
    from playground.ui.conversation.turn_widgets import TurnEditor, TurnText

__all__ = ["ACCENTS", "TurnBlock", "cut", "shows", "text_label"]

# Each role's accent: the block's left border (readable on the light and the dark theme).
ACCENTS = {
    "system": "#8a8a8a",
    "developer": "#8a8a8a",
    "user": "#3d7fd9",
    "assistant": "#3aa675",
    "tool": "#d08a2c",
}
ACCENT_WIDTH = 3  # the accent's border at a block's left
PREVIEW_CHARS = 4000  # a long turn is cut in its block (the JSON body and Edit have it whole)
INSERT_ROLES: tuple[Role, ...] = ("user", "assistant")
_BLOCK_MAKERS: dict[str, Callable[[TurnBlock, Turn], None]] = {}  # by "module:function"


def _blocks_of(turn: Turn) -> list[Callable[[TurnBlock, Turn], None]]:
    """What shows ``turn``'s parts: each kind's declared block (parts.py), imported once."""
    from playground.protocol.conversation.parts import blocks_of

    makers = []
    for path in blocks_of(turn):
        maker = _BLOCK_MAKERS.get(path)
        if maker is None:
            module, _, name = path.partition(":")
            maker = _BLOCK_MAKERS[path] = getattr(importlib.import_module(module), name)
        makers.append(maker)
    return makers


def cut(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"


def text_label(text: str, *, mono: bool = False, muted: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if mono:
        label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    if muted:
        tint(label)
    return label


class TurnBlock(QFrame):
    """One turn: its role and actions (Edit, Insert, Regenerate, Delete), then its parts:
    thinking, text (rendered Markdown), attachments, tool calls, results."""

    def __init__(
        self, index: int, turn: Turn, live: bool, view: ThreadView, *, coming: bool = False
    ) -> None:
        super().__init__()
        self.index = index
        self.turn = turn
        self.live = live
        # The answer on its way (live views streaming it): its block is there from the Send,
        # its actions off until the answer arrives and the block takes it (hold).
        self.coming = coming
        self.view = view
        self.setObjectName("turn")
        # The role's accent is painted (paintEvent), not a style sheet: one per block made every
        # widget in it style-sheet styled, ~80 KB a turn (measured with 100 turns).
        self.accent = QColor(ACCENTS.get(turn.role, "gray"))
        # Never squeezed below its height: a block shown into the column lays the column out
        # at once, at its height before the block was added, and squeezed every block above
        # to fit (their texts' minimum is 0), to grow them back a moment later: each turn
        # added resized and repainted the whole thread twice (35 of 50 blocks, measured).
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        layout = self.box = QVBoxLayout(self)
        layout.setContentsMargins(ACCENT_WIDTH + 12, 2, 2, 2)  # the border, then 12 px
        layout.setSpacing(2)
        head = QHBoxLayout()
        title = ElidedLabel(turn.role)
        bold = title.font()
        bold.setBold(True)
        title.setFont(bold)
        head.addWidget(title, 1)
        self.edit_button = action_button("✎", "Edit this turn's text in place")
        self.edit_button.clicked.connect(self.open_editor)
        head.addWidget(self.edit_button)
        self.insert_button = MenuButton(self._make_insert_menu)
        self.insert_button.setText("+")
        self.insert_button.setToolTip("Insert a user or assistant turn before or after this one")
        self.insert_button.setAutoRaise(True)
        head.addWidget(self.insert_button)
        self.head = head
        self.regenerate_button: QToolButton | None = None
        self.delete_button = action_button("✕", "Delete this turn from the conversation")
        self.delete_button.clicked.connect(lambda: view.deleteRequested.emit(self.index))
        head.addWidget(self.delete_button)
        self._sync_regenerate()
        layout.addLayout(head)
        if coming:
            self._enable_actions(False)
        self.editor: TurnEditor | None = None
        self.text_view: TurnText | None = None
        self.parked: ParkedText | None = None  # the text put away while far out of view
        self.figures: QLabel | None = None  # its request's cache and cost (turn_costs.py)
        # The parts, in a layout of their own: the editor takes the text's place while open.
        self.parts_layout = QVBoxLayout()
        self.parts_layout.setSpacing(2)
        layout.addLayout(self.parts_layout)
        # Where the turn's attachments (image thumbnails) go: between its text and its calls.
        self.attachments_layout = QVBoxLayout()
        self.attachments_layout.setSpacing(2)
        layout.addLayout(self.attachments_layout)
        self.calls_layout = QVBoxLayout()
        self.calls_layout.setSpacing(2)
        layout.addLayout(self.calls_layout)
        if live:
            return  # the run's views show this answer in full, in this block (adopt)
        for show in _blocks_of(turn):  # each kind's block, as its declaration names it
            show(self, turn)
        figures = view.figures_for(turn) if view.figures_for is not None else ""
        if figures:  # what its run's status line said: TTFT, tok/s, tokens, time
            label = text_label(figures, muted=True)
            label.setObjectName("turnRunFigures")
            layout.addWidget(label)

    def adopt(self, host: QWidget) -> None:
        """Show the run's output (``ThreadView.live_host``) as this turn's content: the answer
        streams here and stays here when the run ends."""
        self.box.addWidget(host)

    def hold(self, turn: Turn, *, coming: bool) -> None:
        """Show ``turn``: the same or an equal one, or the answer this block was kept for
        (``coming``: still on its way)."""
        self.turn = turn
        if coming != self.coming:
            self.coming = coming
            self._enable_actions(not coming)

    def _enable_actions(self, enabled: bool) -> None:
        for button in (self.edit_button, self.insert_button, self.delete_button):
            button.setEnabled(enabled)
        if self.regenerate_button is not None:
            self.regenerate_button.setEnabled(enabled)

    def move_to(self, index: int, turn: Turn, *, coming: bool) -> None:
        """The same turn (an equal one) at ``index`` now: a turn before it was added or removed."""
        self.hold(turn, coming=coming)
        if index != self.index:
            self.index = index
            self._sync_regenerate()

    @property
    def insert_menu(self) -> QMenu:
        """Insert's menu: a user or assistant turn before or after this one (made when asked)."""
        return self.insert_button.ensure_menu()

    def _make_insert_menu(self, button: QToolButton) -> QMenu:
        menu = QMenu(button)
        view = self.view
        for where, offset in (("before", 0), ("after", 1)):
            for role in INSERT_ROLES:
                action = menu.addAction(f"{role.capitalize()} turn {where}")
                action.triggered.connect(
                    lambda _=False, o=offset, r=role: view.begin_insert(self.index + o, r)
                )
        return menu

    def _sync_regenerate(self) -> None:
        # Regenerate asks again from the turns before an answer: the first turn has none.
        wanted = self.turn.role == "assistant" and self.index > 0
        if wanted and self.regenerate_button is None:
            button = action_button(
                "↻", "Regenerate: drop this answer and the turns after it, and ask again"
            )
            button.clicked.connect(lambda: self.view.regenerateRequested.emit(self.index))
            button.setEnabled(not self.coming)
            self.head.insertWidget(self.head.indexOf(self.delete_button), button)
            self.regenerate_button = button
        elif not wanted and self.regenerate_button is not None:
            self.regenerate_button.setParent(None)
            self.regenerate_button.deleteLater()
            self.regenerate_button = None

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        painter = QPainter(self)
        painter.fillRect(0, 0, ACCENT_WIDTH, self.height(), self.accent)
        painter.end()

    def open_editor(self) -> None:
        """Edit: the turn's whole text in an editor in place of its rendered text. On a failed
        attempt's turn (no answer to edit), the message it failed for opens instead."""
        if self.coming:
            asked = self.view.blocks[self.index - 1] if self.index > 0 else None
            if asked is not None and asked is not self:
                asked.open_editor()
            return
        if self.editor is not None:
            self.editor.edit.setFocus()
            return
        from playground.ui.conversation.parking import unpark

        unpark(self)
        from playground.ui.conversation.turn_widgets import TurnEditor

        self.editor = TurnEditor(self.turn.text)
        self.editor.saved.connect(lambda text: self.view.editSaved.emit(self.index, text))
        self.editor.cancelled.connect(self.close_editor)
        if self.text_view is not None:
            self.text_view.hide()
        self.parts_layout.addWidget(self.editor)
        self.edit_button.setEnabled(False)
        self.view.in_view.reveal(self.editor)

    def close_editor(self) -> None:
        if self.editor is None:
            return
        self.editor.setParent(None)
        self.editor.deleteLater()
        self.editor = None
        if self.text_view is not None:
            self.text_view.show()
        self.edit_button.setEnabled(True)


def shows(block: TurnBlock, turn: Turn, live: bool) -> bool:
    """Whether ``block`` already shows ``turn`` as wanted (the same or an equal turn, or the
    answer it was kept for: a live block shows its role alone, whatever the answer says)."""
    if block.live != live:
        return False
    return block.turn is turn or block.turn == turn or (block.coming and turn.role == "assistant")


class MenuButton(QToolButton):
    """An instant-popup button whose menu is made when it is first pressed (or asked for): a
    menu with its actions weighs ~13 KB (measured with mallinfo), kept by every turn of a long
    transcript for a menu few are ever opened. It is drawn with its menu's arrow before."""

    def __init__(self, make: Callable[[QToolButton], QMenu]) -> None:
        super().__init__()
        self._make = make
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)

    def ensure_menu(self) -> QMenu:
        menu = self.menu()
        if menu is None:
            menu = self._make(self)
            self.setMenu(menu)
        return menu

    def initStyleOption(self, option: QStyleOptionToolButton) -> None:
        super().initStyleOption(option)
        option.features |= QStyleOptionToolButton.ToolButtonFeature.HasMenu

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.ensure_menu()  # before the press: it opens the menu the button has
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.ensure_menu()
        super().keyPressEvent(event)


def action_button(text: str, tip: str) -> QToolButton:
    """A turn's action: one glyph (a narrow pane has room for four), its words in the tooltip."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button
