"""ThreadView: a conversation's turns as blocks with their actions, and the open calls' results.

It only shows what it is given (``show``) and says what the user asked for through signals; the
thread itself lives in ``ConversationThread`` (thread.py beside this module).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.ui.conversation.attachments import image_row
from playground.ui.conversation.parking import Parking
from playground.ui.elided_label import ElidedLabel

if TYPE_CHECKING:
    from playground.protocol.conversation import Role, ToolCall, Turn

    # The rendered turn text is a LiveText: its module loads with the first turn shown, not with
    # the first frame (every conversational panel builds its thread view before it).
    from playground.ui.conversation.parking import ParkedText
    from playground.ui.conversation.turn_widgets import TurnEditor, TurnText

__all__ = ["ThreadView"]

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


def _cut(text: str) -> str:
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"


def _label(text: str, *, mono: bool = False, muted: bool = False) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if mono:
        label.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    if muted:
        label.setStyleSheet("color: gray;")
    return label


class _TurnBlock(QFrame):
    """One turn: its role and actions (Edit, Insert, Regenerate, Delete), then its parts:
    thinking, text (rendered Markdown), attachments, tool calls, results."""

    def __init__(self, index: int, turn: Turn, live: bool, view: ThreadView) -> None:
        super().__init__()
        self.index = index
        self.turn = turn
        self.live = live
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(ACCENT_WIDTH + 12, 2, 2, 2)  # the border, then 12 px
        layout.setSpacing(2)
        head = QHBoxLayout()
        title = ElidedLabel(turn.role + (" — the answer below" if live else ""))
        bold = title.font()
        bold.setBold(True)
        title.setFont(bold)
        head.addWidget(title, 1)
        self.edit_button = _action("✎", "Edit this turn's text in place")
        self.edit_button.clicked.connect(self.open_editor)
        head.addWidget(self.edit_button)
        self.insert_button = _action(
            "+", "Insert a user or assistant turn before or after this one"
        )
        self.insert_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.insert_menu = QMenu(self.insert_button)
        for where, offset in (("before", 0), ("after", 1)):
            for role in INSERT_ROLES:
                action = self.insert_menu.addAction(f"{role.capitalize()} turn {where}")
                action.triggered.connect(
                    lambda _=False, o=offset, r=role: view.begin_insert(self.index + o, r)
                )
        self.insert_button.setMenu(self.insert_menu)
        head.addWidget(self.insert_button)
        self.head = head
        self.regenerate_button: QToolButton | None = None
        self.delete_button = _action("✕", "Delete this turn from the conversation")
        self.delete_button.clicked.connect(lambda: view.deleteRequested.emit(self.index))
        head.addWidget(self.delete_button)
        self._sync_regenerate()
        layout.addLayout(head)
        self.editor: TurnEditor | None = None
        self.text_view: TurnText | None = None
        self.parked: ParkedText | None = None  # the text put away while far out of view
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
            return  # the live views below show this answer in full
        if turn.reasoning:
            self.parts_layout.addWidget(_label("Thinking: " + _cut(turn.reasoning), muted=True))
        if turn.text:
            self.text_view = view.text_view(_cut(turn.text))
            self.parts_layout.addWidget(self.text_view)
        if turn.images:  # thumbnails with their size (attachments.py)
            self.attachments_layout.addWidget(image_row(turn.images))
        for call in turn.tool_calls:
            self.calls_layout.addWidget(
                _label(f"→ {call.name}({_cut(call.arguments)})  [{call.id}]", mono=True)
            )
        for result in turn.tool_results:
            self.calls_layout.addWidget(
                _label(f"← {result.call_id}: {_cut(result.content)}", mono=True)
            )

    def move_to(self, index: int, turn: Turn) -> None:
        """The same turn (an equal one) at ``index`` now: a turn before it was added or removed."""
        self.turn = turn
        if index != self.index:
            self.index = index
            self._sync_regenerate()

    def _sync_regenerate(self) -> None:
        # Regenerate asks again from the turns before an answer: the first turn has none.
        wanted = self.turn.role == "assistant" and self.index > 0
        if wanted and self.regenerate_button is None:
            button = _action(
                "↻", "Regenerate: drop this answer and the turns after it, and ask again"
            )
            button.clicked.connect(lambda: self.view.regenerateRequested.emit(self.index))
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
        """Edit: the turn's whole text in an editor in place of its rendered text."""
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

    def close_editor(self) -> None:
        if self.editor is None:
            return
        self.editor.setParent(None)
        self.editor.deleteLater()
        self.editor = None
        if self.text_view is not None:
            self.text_view.show()
        self.edit_button.setEnabled(True)


def _shows(block: _TurnBlock, turn: Turn, live: bool) -> bool:
    """Whether ``block`` already shows ``turn`` as wanted (the same or an equal turn)."""
    return block.live == live and (block.turn is turn or block.turn == turn)


def _action(text: str, tip: str) -> QToolButton:
    """A turn's action: one glyph (a narrow pane has room for four), its words in the tooltip."""
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRaise(True)
    return button


class _ResultEditor(QWidget):
    """One open call's result: the call, and a text (or JSON) editor for its answer."""

    def __init__(self, call: ToolCall, text: str) -> None:
        super().__init__()
        self.call = call
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(_label(f"Result of {call.name}({_cut(call.arguments)})", mono=True))
        self.edit = QPlainTextEdit(text)
        self.edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.edit.setPlaceholderText('The tool\'s answer: text or JSON, e.g. {"temp_c": 18}')
        self.edit.setFixedHeight(54)
        self.edit.setTabChangesFocus(True)
        layout.addWidget(self.edit)


class _Column(QWidget):
    """The blocks' column in the scroll area, as tall as its blocks at the width it has."""

    def sizeHint(self) -> QSize:
        # QWidget's is its layout's size hint with the height for the hint's *width*
        # (QLayout::totalSizeHint), and the scroll area asks it at every pass: a second width,
        # where each block's layout keeps its height for one width only, and minimum heights
        # for a width are not kept at all. So each pass laid out every block again, twice:
        # adding the answer at a run's end took 0.11 ms a turn (25 ms with 100 turns, a 2-core
        # AMD EPYC), and 0.02 ms a turn asked at the one width.
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth():  # no blocks: no height for a width
            return super().sizeHint()
        hint = layout.sizeHint()
        width = self.width() if self.width() > 1 else hint.width()
        return QSize(hint.width(), layout.totalHeightForWidth(width))


class ThreadView(QWidget):
    """The thread's blocks, oldest first, then the result editors of the calls still open."""

    deleteRequested = Signal(int)  # the index of the turn to delete
    resultsSubmitted = Signal(list)  # [(call id, content)], one per open call, in call order
    newRequested = Signal()
    editSaved = Signal(int, str)  # the turn's index, its new text
    insertSaved = Signal(int, str, str)  # the place (the index it will have), role, text
    regenerateRequested = Signal(int)  # the index of the assistant turn to ask again
    sendToRequested = Signal(str)  # a route, or "compare"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        head = QHBoxLayout()
        self.summary = ElidedLabel()
        self.summary.setStyleSheet("color: gray;")
        head.addWidget(self.summary, 1)
        self.send_to_button = QToolButton()
        self.send_to_button.setText("Send to")
        self.send_to_button.setToolTip("Carry this conversation to another panel or to Compare")
        self.send_to_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.send_to_menu = QMenu(self.send_to_button)
        self.send_to_button.setMenu(self.send_to_menu)
        head.addWidget(self.send_to_button)
        self.new_button = QPushButton("New conversation")
        self.new_button.setToolTip("Clear the thread and start again (Ctrl+N)")
        self.new_button.clicked.connect(self.newRequested)
        head.addWidget(self.new_button)
        outer.addLayout(head)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        # Turns wrap to the pane's width; a sideways bar would hide the last line under it.
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body = _Column()
        self.blocks_layout = QVBoxLayout(self.body)
        self.blocks_layout.setContentsMargins(0, 0, 4, 0)
        self.blocks_layout.setSpacing(6)
        self.blocks_layout.addStretch(1)
        self.scroller.setWidget(self.body)
        # The newest turn in view: the bar follows its range as blocks are added.
        self.scroller.verticalScrollBar().rangeChanged.connect(self._to_end)
        self.parking = Parking(self)  # older turns' rendered text, while far out of view
        outer.addWidget(self.scroller, 1)
        self.results_box = QWidget()
        results = QVBoxLayout(self.results_box)
        results.setContentsMargins(0, 4, 0, 0)
        self.results_layout = QVBoxLayout()
        results.addLayout(self.results_layout)
        row = QHBoxLayout()
        row.addStretch(1)
        self.send_results_button = QPushButton("Send results")
        self.send_results_button.setToolTip(
            "Send the tool results back and let the model go on (Ctrl+Enter)"
        )
        self.send_results_button.clicked.connect(self.submit_results)
        row.addWidget(self.send_results_button)
        results.addLayout(row)
        outer.addWidget(self.results_box)
        self.results_box.hide()
        self.blocks: list[_TurnBlock] = []
        self.draft: TurnEditor | None = None  # a turn being inserted, not in the thread yet
        self._spare: dict[str, list[TurnText]] = {}  # rendered texts to reuse (show_thread)
        self.result_editors: list[_ResultEditor] = []
        self._results_for: list[tuple[ToolCall, str]] = []  # the calls and texts they were made for
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    def preferred_height(self) -> int:
        """The height its turns and result editors need (the pane is sized to it, not more)."""
        results = self.results_box.sizeHint().height() if self.result_editors else 0
        width = self.scroller.viewport().width()
        layout = self.blocks_layout
        layout.activate()  # blocks just added: their sizes, not the last layout's
        # The turns' height at the pane's width (their labels wrap), not at their widest.
        body = (
            layout.totalHeightForWidth(width)
            if layout.hasHeightForWidth() and width > 0
            else self.body.sizeHint().height()
        )
        return self.summary.sizeHint().height() + body + results + 16

    def show_thread(
        self,
        turns: Sequence[Turn],
        *,
        live: int | None,
        open_calls: Sequence[ToolCall],
        prefill: dict[str, str],
    ) -> None:
        """Show ``turns`` (``live``: the index of the answer the live views show in full) and
        one result editor per open call (``prefill``: a canned result by tool name).

        Only what changed is built again: the blocks of the turns kept at the start and at the end
        (the same or an equal turn, shown the same way) stay as they are, so a run's answer or a
        sent turn adds one block, and an edit, insert or delete rebuilds the turns between. Building
        all of them again cost ~17 ms a turn (their rendered Markdown), measured at 1024x700.
        """
        self.cancel_insert()
        old = self.blocks
        n, m = len(old), len(turns)
        head = 0
        while head < min(n, m) and _shows(old[head], turns[head], head == live):
            head += 1
        tail = 0
        while tail < min(n, m) - head and _shows(
            old[n - 1 - tail], turns[m - 1 - tail], m - 1 - tail == live
        ):
            tail += 1
        gone, kept = old[head : n - tail], old[n - tail :]
        # A gone turn's rendered text is kept for a new turn that has the same text.
        self._spare = {}
        for block in gone:
            shown = block.text_view
            if shown is not None and block.editor is None:
                shown.setParent(None)
                self._spare.setdefault(shown.source, []).append(shown)
            block.setParent(None)
            block.deleteLater()
        built = []
        for i in range(head, m - tail):
            block = _TurnBlock(i, turns[i], i == live, self)
            self.blocks_layout.insertWidget(i, block)
            block.show()  # now, not at Qt's later show: a hidden block measures 0 high
            built.append(block)
        for i, block in enumerate(old[:head]):
            block.turn = turns[i]
        for i, block in enumerate(kept, m - tail):
            block.move_to(i, turns[i])
        self.blocks = old[:head] + built + kept
        for unused in self._spare.values():
            for shown in unused:
                shown.deleteLater()
        self._spare = {}
        self._show_results(open_calls, prefill)
        self.parking.soon()
        count = len(turns)
        self.summary.setText(
            f"Conversation: {count} turn{'s' if count != 1 else ''}"
            if count
            else "New conversation"
        )

    def _show_results(self, open_calls: Sequence[ToolCall], prefill: dict[str, str]) -> None:
        """One result editor per open call; the editors shown stay (with what the user typed)
        while the same calls are open with the same canned results."""
        wanted = [(c, prefill.get(c.name, "")) for c in open_calls]
        if wanted == self._results_for:
            return
        self._results_for = wanted
        for editor in self.result_editors:
            editor.setParent(None)
            editor.deleteLater()
        self.result_editors = [_ResultEditor(c, text) for c, text in wanted]
        for editor in self.result_editors:
            self.results_layout.addWidget(editor)
        self.results_box.setVisible(bool(self.result_editors))

    def text_view(self, text: str) -> TurnText:
        """``text`` rendered: the view of a block just replaced if it showed the same, else new."""
        spare = self._spare.get(text)
        if spare:
            shown = spare.pop()
            shown.show()
            return shown
        from playground.ui.conversation.turn_widgets import TurnText

        return TurnText(text)

    def set_targets(self, targets: Sequence[tuple[str, str]]) -> None:
        """The Send to menu: (label, target) for each other panel and Compare."""
        self.send_to_menu.clear()
        for label, target in targets:
            action = self.send_to_menu.addAction(label)
            action.setData(target)
            action.triggered.connect(lambda _=False, t=target: self.sendToRequested.emit(t))

    def begin_insert(self, place: int, role: str) -> None:
        """Insert: an editor for a new ``role`` turn shown at ``place``, added on Save."""
        self.cancel_insert()
        from playground.ui.conversation.turn_widgets import TurnEditor

        draft = TurnEditor("", f"New {role} turn")
        draft.setObjectName("turn")
        draft.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)  # a plain QWidget: its border
        draft.setStyleSheet(
            f"QWidget#turn {{ border-left: 3px dashed {ACCENTS.get(role, 'gray')};"
            " padding-left: 6px; }"
        )
        draft.saved.connect(lambda text: self.insertSaved.emit(place, role, text))
        draft.cancelled.connect(self.cancel_insert)
        self.blocks_layout.insertWidget(min(place, len(self.blocks)), draft)
        self.draft = draft
        self.scroller.ensureWidgetVisible(draft)

    def cancel_insert(self) -> None:
        if self.draft is not None:
            self.draft.setParent(None)
            self.draft.deleteLater()
            self.draft = None

    def _to_end(self, _low: int, high: int) -> None:
        if self.draft is not None or any(b.editor is not None for b in self.blocks):
            return  # a turn being edited stays where the user is looking
        self.scroller.verticalScrollBar().setValue(high)

    def results(self) -> list[tuple[str, str]]:
        return [(e.call.id, e.edit.toPlainText()) for e in self.result_editors]

    def submit_results(self) -> None:
        if self.result_editors:
            self.resultsSubmitted.emit(self.results())
