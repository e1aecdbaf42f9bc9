"""ThreadView: a conversation's turns as blocks with their actions, and the open calls' results.

It only shows what it is given (``show``) and says what the user asked for through signals; the
thread itself lives in ``ConversationThread`` (thread.py beside this module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFontDatabase
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

from playground.ui.conversation.in_view import EditorInView
from playground.ui.conversation.parking import Parking
from playground.ui.conversation.pending_turns import first_built, make_block
from playground.ui.conversation.system_section import SystemSection
from playground.ui.conversation.turn_block import ACCENTS, TurnBlock, cut, shows, text_label
from playground.ui.kit.elided_label import ElidedLabel
from playground.ui.runtime import idle
from playground.ui.views.routes import ROUTE_VIEWS, route_icon

if TYPE_CHECKING:
    from playground.protocol.conversation import ToolCall, Turn

    # The rendered turn text is a LiveText: its module loads with the first turn shown, not with
    # the first frame (every conversational panel builds its thread view before it).
    from playground.ui.conversation.turn_widgets import TurnEditor, TurnText

__all__ = ["ThreadView"]


class _ResultEditor(QWidget):
    """One open call's result: the call, and a text (or JSON) editor for its answer."""

    def __init__(self, call: ToolCall, text: str) -> None:
        super().__init__()
        self.call = call
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(text_label(f"Result of {call.name}({cut(call.arguments)})", mono=True))
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

    def minimumSizeHint(self) -> QSize:
        # The scroll area makes the column at least this tall. The layout's own minimum adds
        # up the blocks' size hints (a block is never squeezed below its hint), each taken at
        # the block's hint width, where a wrapped label (a turn's thinking, a tool call) is
        # taller than at the pane's: the column grew by the difference, and the thread ended
        # in blank space (126 px for six answers with thinking, the pane 520 px wide). Its
        # height at its width is the size hint's.
        return QSize(super().minimumSizeHint().width(), 0)


class ThreadView(QWidget):
    """The thread's blocks, oldest first, then the result editors of the calls still open."""

    deleteRequested = Signal(int)  # the index of the turn to delete
    resultsSubmitted = Signal(list)  # [(call id, content)], one per open call, in call order
    newRequested = Signal()
    editSaved = Signal(int, str)  # the turn's index, its new text
    insertSaved = Signal(int, str, str)  # the place (the index it will have), role, text
    regenerateRequested = Signal(int)  # the index of the assistant turn to ask again
    sendToRequested = Signal(str)  # a route, or "compare"
    # A far turn's real block, built in its stand-in's place as it came near the view (or was
    # asked for): what decorates built blocks (costs, cache marks) decorates it too.
    farBuilt = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        head = self.head = QHBoxLayout()
        self.summary = ElidedLabel()
        self.summary.setStyleSheet("color: gray;")
        # Its few characters count in the head's minimum, so the pane's minimum holds the row.
        self.summary.setMinimumWidth(self.summary.minimumSizeHint().width())
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
        # The system prompt, folded by default above the turns (``set_system_box``).
        self.system_section = SystemSection()
        self.system_section.hide()
        outer.addWidget(self.system_section)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setFrameShape(QFrame.Shape.NoFrame)
        # Turns wrap to the pane's width; a sideways bar would hide the last line under it.
        self.scroller.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body = _Column()
        # Opaque (it paints its own background, the window's colour it showed anyway): Qt then
        # moves the painted column as pixels when it scrolls and paints only the strip it
        # uncovers. Transparent, each scroll repainted every turn in view, and the tail that
        # follows a streaming answer scrolls at each step it grows.
        self.body.setAutoFillBackground(True)
        self.blocks_layout = QVBoxLayout(self.body)
        self.blocks_layout.setContentsMargins(0, 0, 4, 0)
        self.blocks_layout.setSpacing(6)
        self.blocks_layout.addStretch(1)
        self.scroller.setWidget(self.body)
        # The newest turn in view: the bar follows its range as blocks are added and as the
        # answer grows, unless the user scrolled up (then "Jump to latest" brings it back).
        self.following = True
        bar = self.scroller.verticalScrollBar()
        bar.rangeChanged.connect(self._to_end)
        bar.valueChanged.connect(self._scrolled)
        # The user's own scrolling (wheel, keys, the bar), not the thread following its end:
        # work that would stall its frames (parking too) waits until it is still (idle.py).
        bar.actionTriggered.connect(lambda _action: idle.scrolled())
        self.parking = Parking(self)  # older turns' rendered text, while far out of view
        self.in_view = EditorInView(self)  # an editor just opened, scrolled into view
        outer.addWidget(self.scroller, 1)
        self.jump_button = QPushButton("↓ Jump to latest", self.scroller)
        self.jump_button.setToolTip("Scroll to the end of the conversation and follow it again")
        self.jump_button.clicked.connect(self.jump_to_latest)
        self.jump_button.hide()
        self.empty_hint = QLabel(
            "Start a conversation: type a message below and press Ctrl+Enter.\n"
            "The answer streams in here, as the last turn."
        )
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setStyleSheet("color: gray; padding: 24px;")
        # The run's output (banner, live views, status line): inside the turn it answers
        # (``set_live_host``); parked here, hidden, while no turn shows a run.
        self.live_host: QWidget | None = None
        # An answer's figures as its run ended (the thread's), shown in its block.
        self.figures_for: Callable[[Turn], str] | None = None
        self._host_park = QWidget(self)
        self._host_park.hide()
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
        # Under the calls they answer, at the end of the transcript; then the empty state.
        self.blocks_layout.insertWidget(0, self.results_box)
        self.blocks_layout.insertWidget(1, self.empty_hint)
        self.results_box.hide()
        self.blocks: list[TurnBlock] = []
        self.draft: TurnEditor | None = None  # a turn being inserted, not in the thread yet
        self._spare: dict[str, list[TurnText]] = {}  # rendered texts to reuse (show_thread)
        self.result_editors: list[_ResultEditor] = []
        self._results_for: list[tuple[ToolCall, str]] = []  # the calls and texts they were made for
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    def show_thread(
        self,
        turns: Sequence[Turn],
        *,
        live: int | None,
        open_calls: Sequence[ToolCall],
        prefill: dict[str, str],
        awaiting: bool = False,
    ) -> None:
        """Show ``turns`` (``live``: the index of the answer the live views show in full) and
        one result editor per open call (``prefill``: a canned result by tool name).
        ``awaiting``: an answer is on its way; its block follows the turns from the Send on, and
        takes the answer when it arrives, so a run's end builds nothing (it cost the run's last
        frame 3-6 ms of building and as much again of laying out and painting the new block).

        Only what changed is built again: the blocks of the turns kept at the start and at the end
        (the same or an equal turn, shown the same way) stay as they are, so a run's answer or a
        sent turn adds one block, and an edit, insert or delete rebuilds the turns between. Building
        all of them again cost ~17 ms a turn (their rendered Markdown), measured at 1024x700.
        """
        self.cancel_insert()
        count = len(turns)
        if awaiting:
            from playground.protocol.conversation.model import Turn

            turns, live = [*turns, Turn("assistant")], count
        old = self.blocks
        n, m = len(old), len(turns)
        head = 0
        while head < min(n, m) and shows(old[head], turns[head], head == live):
            head += 1
        tail = 0
        while tail < min(n, m) - head and shows(
            old[n - 1 - tail], turns[m - 1 - tail], m - 1 - tail == live
        ):
            tail += 1
        gone, kept = old[head : n - tail], old[n - tail :]
        # A gone turn's rendered text is kept for a new turn that has the same text.
        self._spare = {}
        self._park_host(gone)
        for block in gone:
            shown = block.text_view
            if shown is not None and block.editor is None:
                shown.setParent(None)
                self._spare.setdefault(shown.source, []).append(shown)
            block.setParent(None)
            block.deleteLater()
        built = []
        coming = m - 1 if awaiting else None
        # Many turns at once (an opened conversation): the far ones wait as stand-ins until
        # they come near the view (pending_turns.py). 200 turns with code and tables, all
        # built, took 2.2 s to the paint of the last screen (measured at 1560x920).
        first = first_built(self, turns, head, m - tail)
        for i in range(head, m - tail):
            block = make_block(
                self, i, turns[i], i == live, coming=i == coming, first=first, bulk=first > head
            )
            self.blocks_layout.insertWidget(i, block)
            built.append(block)
        self._make_room(built)
        for block in built:
            block.show()  # now, not at Qt's later show: a hidden block measures 0 high
        for i, block in enumerate(old[:head]):
            block.hold(turns[i], coming=i == coming)
        for i, block in enumerate(kept, m - tail):
            block.move_to(i, turns[i], coming=i == coming)
        self.blocks = old[:head] + built + kept
        for unused in self._spare.values():
            for shown in unused:
                shown.deleteLater()
        self._spare = {}
        self._show_results(open_calls, prefill)
        self._place_host(live)
        self.empty_hint.setVisible(not self.blocks)
        if built or gone:
            self.parking.soon()
        self.summary.setText(
            f"Conversation: {count} turn{'s' if count != 1 else ''}"
            if count
            else "New conversation"
        )

    # ---- the run's output, inside the turn it answers ----------------------------------------
    def set_live_host(self, host: QWidget) -> None:
        """``host`` (the panel's banner, live views and status line) shows inside the live turn."""
        self.live_host = host
        host.setParent(self._host_park)

    def host_block(self) -> TurnBlock | None:
        """The block that shows the run's output now, if any."""
        holder = self.live_host.parentWidget() if self.live_host is not None else None
        return holder if isinstance(holder, TurnBlock) else None

    def _park_host(self, blocks: Sequence[TurnBlock]) -> None:
        host = self.live_host
        if host is not None and any(host.parent() is block for block in blocks):
            host.hide()
            host.setParent(self._host_park)

    def _place_host(self, live: int | None) -> None:
        host = self.live_host
        if host is None:
            return
        block = self.blocks[live] if live is not None and 0 <= live < len(self.blocks) else None
        if block is None:
            self._park_host(self.blocks)
            return
        if host.parent() is not block:
            block.adopt(host)
        host.show()

    def _scrolled(self, value: int) -> None:
        bar = self.scroller.verticalScrollBar()
        # Within a line of the end counts as the end (a row of pixels left by a resize).
        self.following = value >= bar.maximum() - 8
        self.jump_button.setVisible(not self.following)
        if not self.following:
            self._place_jump()

    def _place_jump(self) -> None:
        button, area = self.jump_button, self.scroller
        button.adjustSize()
        button.move(
            (area.width() - button.width()) // 2, area.height() - button.height() - 12
        )
        button.raise_()

    def jump_to_latest(self) -> None:
        bar = self.scroller.verticalScrollBar()
        self.following = True
        bar.setValue(bar.maximum())
        self.jump_button.hide()

    def _make_room(self, blocks: list[TurnBlock]) -> None:
        """The column grown by ``blocks``' height before they show. Showing a block lays the
        column out at once, at its height then: too short, it squeezed every block above to
        fit, and grew them back a moment later, once the scroll area had made it taller (each
        block resized and repainted twice a turn added: 35 of 50, measured)."""
        column = self.body
        if not blocks or not column.isVisible():
            return
        layout = self.blocks_layout
        margins = layout.contentsMargins()
        width = column.width() - margins.left() - margins.right()
        grown = sum(b.box.totalHeightForWidth(width) + layout.spacing() for b in blocks)
        column.setMinimumHeight(column.height() + grown)  # resizes it now (QWidget's rule)
        column.setMinimumHeight(0)  # the scroll area makes it as tall as its blocks later

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
            if target in ROUTE_VIEWS:  # a panel: its tab's icon (Compare has none)
                action.setIcon(route_icon(target))
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
        self.in_view.reveal(draft)

    def cancel_insert(self) -> None:
        if self.draft is not None:
            self.draft.setParent(None)
            self.draft.deleteLater()
            self.draft = None

    def _to_end(self, _low: int, high: int) -> None:
        if self.draft is not None or any(b.editor is not None for b in self.blocks):
            return  # a turn being edited stays where the user is looking
        if not self.following:
            self._place_jump()  # the user reads further up: the end is a click away
            return
        self.scroller.verticalScrollBar().setValue(high)

    def results(self) -> list[tuple[str, str]]:
        return [(e.call.id, e.edit.toPlainText()) for e in self.result_editors]

    def submit_results(self) -> None:
        if self.result_editors:
            self.resultsSubmitted.emit(self.results())
