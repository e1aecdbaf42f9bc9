"""A conversational panel's layout: the transcript with its composer, beside a foldable form.

The transcript (the thread's view) is the panel's main column, as in the OpenAI and Anthropic
consoles and LM Studio: the system prompt folded at its top, every turn, and the run in
progress as the last turn (the panel's output box lives inside that turn); under it the
composer, the message box with its attachments, the simulator's pickers and Send/Stop. The
request form (parameters, tools, response format) is a side pane that folds away.

The transcript keeps the room: it is never narrower than ``TRANSCRIPT_MIN`` while the window is
at least ``WIDE_WINDOW`` wide, and the form folds by itself when the two do not fit (the
inspector beside the panel gives way through the panel's minimum width).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.ui.panels.error_banner import ErrorBanner

if TYPE_CHECKING:
    from playground.ui.conversation.thread import ConversationThread
    from playground.ui.panels.route_panel import RoutePanel

__all__ = [
    "FORM_SHORTCUT",
    "TRANSCRIPT_MIN",
    "WIDE_WINDOW",
    "TranscriptLayout",
    "arrange_transcript",
]

TRANSCRIPT_MIN = 420  # px: a heading, a code line of ~50 characters, a 4-column table
LAPTOP_WIDTH = 1200  # px: below this the transcript keeps half of the window, the form folds
WIDE_WINDOW = 960  # px: below this the window is too small to promise the transcript's minimum
FORM_SHORTCUT = "Ctrl+Shift+F"
_FORM_SHARE = 0.34  # of the panel's width, when the form is shown beside the transcript
FORM_MIN = 120  # px: the form pane's own minimum (its content's is more)


class TranscriptLayout(QObject):
    """Holds the transcript column and the form pane, and keeps the transcript's width."""

    def __init__(self, panel: RoutePanel, thread: ConversationThread) -> None:
        super().__init__(panel)
        # Weak: the panel holds this (``panel.transcript``); a cycle of Python references
        # between a widget and its QObject child, collected in the wrong order, crashes PySide.
        self._panel = weakref.ref(panel)
        view = thread.view
        self.column = QWidget()
        column = QVBoxLayout(self.column)
        column.setContentsMargins(0, 0, 4, 0)
        column.setSpacing(4)
        column.addWidget(view, 1)
        self.composer = QFrame()
        self.composer.setObjectName("composer")
        self.composer.setFrameShape(QFrame.Shape.StyledPanel)
        composer = QVBoxLayout(self.composer)
        composer.setContentsMargins(6, 6, 6, 6)
        composer.setSpacing(4)
        # What a Send that did not go has to say (no turn is there to hold it).
        self.notice = ErrorBanner()
        composer.addWidget(self.notice)
        placed = panel.editor.places.get("composer")
        if placed is not None:
            composer.addWidget(placed)
        composer.addWidget(panel.controls)
        column.addWidget(self.composer)
        self.composer.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        prompt = panel.editor.prompt_box()
        if prompt is not None:
            _GrowingBox(prompt)  # the box's child: it lives as long as the box
        system = panel.editor.places.get("system")
        if system is not None:
            view.system_section.adopt(system)
        view.set_live_host(panel.output_box)

        self.form_pane = QWidget()
        form = QVBoxLayout(self.form_pane)
        form.setContentsMargins(4, 0, 0, 0)
        title = QLabel("Request: parameters, tools, response format")
        title.setStyleSheet("color: gray;")
        title.setWordWrap(True)
        form.addWidget(title)
        form.addWidget(panel.form_scroll, 1)
        # Its content's minimum does not hold the window's: a window dragged narrow folds the
        # form (``keep_room``) rather than stopping at the form's width beside the transcript.
        self.form_pane.setMinimumWidth(FORM_MIN)
        splitter = panel.splitter
        splitter.addWidget(self.column)
        splitter.addWidget(self.form_pane)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 0)

        self.form_toggle = QToolButton()
        self.form_toggle.setText("Form")
        self.form_toggle.setCheckable(True)
        self.form_toggle.setChecked(True)
        self.form_toggle.setToolTip(
            f"Show or hide the request form: parameters, tools, response format ({FORM_SHORTCUT})"
        )
        self.form_toggle.toggled.connect(self._toggled)
        view.head.addWidget(self.form_toggle)
        shortcut = QShortcut(QKeySequence(FORM_SHORTCUT), panel)
        shortcut.activated.connect(self.form_toggle.toggle)
        # None: the form follows the room (folded when the transcript would be squeezed); True
        # or False once the user chose, which the layout then keeps.
        self.chosen: bool | None = None
        self._auto = False  # the toggle is being set by the layout, not the user
        panel.installEventFilter(self)

    def add_to_composer(self, part: QWidget) -> None:
        """``part`` under the message box, above the pickers and Send (the context gauge)."""
        layout = self.composer.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(self.panel.controls), part)

    @property
    def panel(self) -> RoutePanel:
        panel = self._panel()
        assert panel is not None, "the layout outlived its panel"
        return panel

    # ---- the form pane -----------------------------------------------------------------------
    @property
    def form_shown(self) -> bool:
        return not self.form_pane.isHidden()

    def set_form_shown(self, on: bool) -> None:
        """Show or fold the form (as the toggle does: the user's choice, kept)."""
        self.form_toggle.setChecked(on)

    def _toggled(self, on: bool) -> None:
        if not self._auto:
            self.chosen = on
        self.form_pane.setVisible(on)
        if on:
            total = sum(self.panel.splitter.sizes()) or self.panel.width()
            form = max(int(total * _FORM_SHARE), self._form_width())
            self.panel.splitter.setSizes([max(total - form, 0), form])
        self.keep_room()

    def _form_width(self) -> int:
        """The width the form needs to show its fields whole (its scroll area keeps it)."""
        scroll = self.panel.form_scroll
        return max(scroll.minimumWidth(), scroll.minimumSizeHint().width()) + 8

    def _set_auto(self, on: bool) -> None:
        if self.form_toggle.isChecked() == on:
            return
        self._auto = True
        try:
            self.form_toggle.setChecked(on)
        finally:
            self._auto = False

    # ---- the transcript's room ---------------------------------------------------------------
    def keep_room(self) -> None:
        """The transcript at least ``TRANSCRIPT_MIN`` wide in a wide window (the form folds
        first, unless the user asked for it); the form shown again when there is room."""
        panel = self._panel()
        if panel is None:  # a Resize or Show while the panel is being destroyed
            return
        window = panel.window()
        wide = window is not panel and window.width() >= WIDE_WINDOW
        self.column.setMinimumWidth(TRANSCRIPT_MIN if wide else 0)
        if self.chosen is None and panel.isVisible():
            form_min = self._form_width()
            # Room for both; in a laptop-sized window the transcript takes at least half of the
            # window's width (the form folds first).
            laptop = window.width() < LAPTOP_WIDTH
            wanted = max(TRANSCRIPT_MIN, window.width() // 2) if laptop else TRANSCRIPT_MIN
            needed = wanted + form_min + 24
            if self.form_shown and panel.width() < needed:
                self._set_auto(False)
            elif not self.form_shown and panel.width() >= needed + 80:  # no flicker at the edge
                self._set_auto(True)
        self._form_whole()

    def _form_whole(self) -> None:
        """The form shown at least as wide as its fields, where the transcript keeps its
        minimum beside it (the splitter alone gave it its stretch share: 229 of 355 px)."""
        panel = self._panel()
        if panel is None or not self.form_shown:
            return
        sizes = panel.splitter.sizes()
        want = self._form_width()
        if len(sizes) == 2 and sizes[1] < want and sum(sizes) - want >= TRANSCRIPT_MIN:
            panel.splitter.setSizes([sum(sizes) - want, want])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        shown_or_resized = event.type() in (QEvent.Type.Resize, QEvent.Type.Show)
        if shown_or_resized and watched is not None and watched is self._panel():
            self.keep_room()
            if event.type() == QEvent.Type.Show:
                # Shown into a window laid out already, it gets its final width a moment later.
                QTimer.singleShot(0, self.keep_room)
        return False


class _GrowingBox(QObject):
    """The message box as tall as its text: two lines empty, up to ``MAX_LINES``, then it
    scrolls (a chat console's composer; a fixed tall box took the transcript's height)."""

    MIN_LINES, MAX_LINES = 2, 10

    def __init__(self, box: QPlainTextEdit) -> None:
        super().__init__(box)
        self._box = weakref.ref(box)  # its parent: no Python cycle between the two
        box.setMinimumHeight(0)
        box.setMaximumHeight(16777215)
        box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        box.textChanged.connect(self.fit)
        box.installEventFilter(self)
        self.fit()

    def fit(self) -> None:
        box = self._box()
        if box is None:
            return
        lines = 0
        block = box.document().begin()
        while block.isValid() and lines <= self.MAX_LINES:
            layout = block.layout()
            lines += max(layout.lineCount() if layout is not None else 1, 1)
            block = block.next()
        lines = min(max(lines, self.MIN_LINES), self.MAX_LINES)
        margins = box.contentsMargins()
        height = (
            lines * box.fontMetrics().lineSpacing()
            + int(2 * box.document().documentMargin())
            + margins.top()
            + margins.bottom()
            + 2 * box.frameWidth()
        )
        if box.height() != height:
            box.setFixedHeight(height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()  # another width wraps the text into other lines
        return False


def arrange_transcript(panel: RoutePanel, thread: ConversationThread) -> TranscriptLayout:
    """Lay ``panel`` out as a transcript beside its form (the panel keeps the result)."""
    panel.transcript = TranscriptLayout(panel, thread)
    return panel.transcript
