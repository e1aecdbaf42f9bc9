"""AnswerView: the answer text, live while streaming and rendered as Markdown when done."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QLabel, QTabWidget, QVBoxLayout, QWidget

if TYPE_CHECKING:  # types only: the state loads with the first run (startup)
    from playground.protocol.state import ChoiceState, StreamState

from .live_text import LiveText
from .lost_text import GapFeed

__all__ = ["INCOMPLETE_STATUSES", "AnswerView", "ChoicePane"]

# Text received before an error or a truncation is kept, shown as incomplete (docs/protocol.md §0).
INCOMPLETE_STATUSES = frozenset({"failed", "truncated", "incomplete", "cancelled"})
_STATUS_WORDS = {
    "failed": "the stream failed",
    "truncated": "the stream was truncated (it ended without its terminator)",
    "incomplete": "the model stopped early (length / max tokens)",
    "cancelled": "you stopped it",
}


class ChoicePane(QWidget):
    """One choice: an optional refusal box above the answer text."""

    activated = Signal(int)

    def __init__(self, index: int, parent: QWidget | None = None, *, markdown: bool = True) -> None:
        super().__init__(parent)
        self.index = index
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.refusal_box = QFrame(self)
        self.refusal_box.setObjectName("refusalBox")
        # Distinct styling so a refusal never reads as an answer.
        self.refusal_box.setStyleSheet(
            "#refusalBox { border: 1px solid #c0392b; border-radius: 4px;"
            " background: rgba(192, 57, 43, 0.10); }"
        )
        box = QVBoxLayout(self.refusal_box)
        box.setContentsMargins(6, 4, 6, 4)
        title = QLabel("Refusal — the model declined to answer", self.refusal_box)
        title.setStyleSheet("color: #c0392b; font-weight: bold;")
        box.addWidget(title)
        self.refusal = LiveText(self.refusal_box)
        self.refusal.setFrameShape(QFrame.Shape.NoFrame)
        self.refusal.setMaximumHeight(120)
        box.addWidget(self.refusal)
        self.refusal_box.hide()
        layout.addWidget(self.refusal_box)
        self.text = LiveText(
            self,
            placeholder="The answer appears here as it streams. Type a prompt and press Send.",
            markdown=markdown,
        )
        layout.addWidget(self.text, 1)
        self.text.activated.connect(self.activated)
        self.refusal.activated.connect(self.activated)

    def sync(self, choice: ChoiceState) -> None:
        self.text.sync(choice.text)
        if choice.refusal:
            self.refusal.sync(choice.refusal)
            if self.refusal_box.isHidden():
                self.refusal_box.show()

    def render_markdown(self) -> None:
        self.text.render_markdown()

    def highlight(self, item: int) -> bool:
        found = self.text.highlight(item)
        return self.refusal.highlight(item) or found


class AnswerView(QWidget):
    """The answer: a tab per choice when there are several (chat ``n`` > 1), else one text view."""

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, markdown: bool = True) -> None:
        super().__init__(parent)
        # False: the answer as plain text (the benchmark's baseline for ui_markdown_vs_plain).
        self.markdown = markdown
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.marker = QLabel(self)
        self.marker.setObjectName("incompleteMarker")
        self.marker.setWordWrap(True)
        self.marker.setStyleSheet(
            "#incompleteMarker { color: #8a5a00; background: rgba(230, 160, 0, 0.18);"
            " border: 1px solid #d4a017; border-radius: 4px; padding: 3px 6px; }"
        )
        self.marker.hide()
        layout.addWidget(self.marker)
        # Text lost to an unreadable event (bad JSON) is never silent: marked where it was lost
        # in the answer, and counted here (the mark may be scrolled out of sight).
        self.lost = QLabel(self)
        self.lost.setObjectName("lostMarker")
        self.lost.setWordWrap(True)
        self.lost.setStyleSheet(self.marker.styleSheet().replace("incompleteMarker", "lostMarker"))
        self.lost.hide()
        layout.addWidget(self.lost)
        self._gaps = GapFeed()  # lost text: marked where it was lost
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.tabs.tabBar().hide()
        layout.addWidget(self.tabs, 1)
        self.panes: dict[int, ChoicePane] = {}
        self.reset()

    # -- contract ------------------------------------------------------------------------------

    def reset(self) -> None:
        self.tabs.clear()
        for pane in self.panes.values():
            pane.deleteLater()
        self.panes = {}
        self.marker.hide()
        self.lost.hide()
        self._gaps.reset()
        self._choices: dict[int, ChoiceState] | None = None
        self._pane(0)
        self.tabs.tabBar().hide()

    def refresh(self, state: StreamState) -> None:
        if state.choices is not self._choices:
            if self._choices is not None:
                self.reset()  # a new run's state: start over even if nobody called reset()
            self._choices = state.choices
        choice = state.choices.get(0)
        # Before the text that follows is shown: the block holding a gap is rendered with its
        # mark, never rendered again for it. (Rare: only when there are new findings.)
        if choice is not None and self._gaps.feed(
            self._pane(0).text, state.findings, choice.text, (choice.reasoning,)
        ):
            self._say_lost(state)
        for index in sorted(state.choices):
            choice = state.choices[index]
            self._pane(index).sync(choice)
        if len(self.panes) > 1:
            self.tabs.tabBar().show()
            for index, pane in self.panes.items():
                found = state.choices.get(index)
                label = f"Choice {index}"
                if found is not None and found.finish:
                    label += f" · {found.finish}"
                tab = self.tabs.indexOf(pane)
                if self.tabs.tabText(tab) != label:
                    self.tabs.setTabText(tab, label)

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        for pane in self.panes.values():
            pane.render_markdown()
        if state.status in INCOMPLETE_STATUSES and self.has_content():
            self.marker.setText(
                f"⚠ Incomplete — {_STATUS_WORDS[state.status]}. Partial output kept."
            )
            self.marker.show()
        else:
            self.marker.hide()

    def _say_lost(self, state: StreamState) -> None:
        from .lost_text import LOST_CODES

        lost = [f for f in state.findings if f.code in LOST_CODES and f.item is not None]
        if not lost:
            return
        count = f"{len(lost)} events" if len(lost) > 1 else "An event"
        self.lost.setText(
            f"⚠ {count} could not be read (bad JSON): text may be missing where ⚠ marks it."
        )
        self.lost.setToolTip(
            "\n".join(f"Could not read event #{f.item}: {f.message}" for f in lost)
        )
        self.lost.show()

    def set_markdown(self, on: bool) -> None:
        """Render the answer as Markdown (the default) or show it as plain text, from the next
        run on (a run being shown keeps its look)."""
        self.markdown = on
        self.reset()

    def set_placeholder(self, text: str) -> None:
        """What an empty pane says (until the next reset brings the idle hint back)."""
        for pane in self.panes.values():
            pane.text.setPlaceholderText(text)

    def highlight_item(self, item: int) -> None:
        shown = False
        for pane in self.panes.values():
            if pane.highlight(item) and not shown:
                self.tabs.setCurrentWidget(pane)
                shown = True

    def has_content(self) -> bool:
        return any(p.text.shown or p.refusal.shown for p in self.panes.values())

    @property
    def pending(self) -> bool:
        """Markdown received but not laid out yet (a grab or a dump waits for it)."""
        return any(p.text.pending for p in self.panes.values())

    def html(self, index: int = 0) -> str:
        """The answer's rich text as Qt holds it (``QTextDocument.toHtml``), laid out to the end."""
        pane = self.panes.get(index)
        if pane is None:
            return ""
        pane.text.flush()
        return pane.text.document().toHtml()

    # -- helpers -------------------------------------------------------------------------------

    @property
    def incomplete_marked(self) -> bool:
        return not self.marker.isHidden()

    def pane(self, index: int = 0) -> ChoicePane | None:
        return self.panes.get(index)

    def _pane(self, index: int) -> ChoicePane:
        pane = self.panes.get(index)
        if pane is None:
            pane = self.panes[index] = ChoicePane(index, self, markdown=self.markdown)
            pane.activated.connect(self.itemActivated)
            # Keep tabs in choice order even if choice 2 arrives before choice 1.
            position = sum(1 for other in self.panes if other < index)
            self.tabs.insertTab(position, pane, f"Choice {index}")
        return pane
