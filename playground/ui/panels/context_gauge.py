"""ContextGauge: how full the model's context window is with the request about to be sent.

The request body's input tokens split into system, tools, history, attachments and the new
message (protocol/accounting/tokens.py ``estimate_context``), against the model's window from
the gateway's /v1/models ("unknown window" when it says none); amber from 80 %, red from 95 %.
The count is the offline estimate, labelled so, or the gateway's counting endpoint's where the
route has one (asked off the UI thread, after typing pauses, a newer body cancelling an older
question). After a run, the input the provider reported is shown beside it.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from playground.ui.kit.theme import is_dark

if TYPE_CHECKING:
    from playground.protocol.accounting.models_meta import ModelInfo
    from playground.protocol.accounting.tokens import ContextEstimate
    from playground.ui.panels.route_panel import RoutePanel

__all__ = [
    "DEBOUNCE_MS",
    "ContextGauge",
    "Counter",
    "ModelSource",
    "after_body_changes",
    "gauge_text",
]

DEBOUNCE_MS = 350  # after the last keystroke: the estimate reads the whole body
# The current model of the panel's route: its name and what /v1/models says of it.
ModelSource = Callable[[], "tuple[str, ModelInfo | None]"]
# (route, body) -> the gateway's count of the body's input tokens, or None (no endpoint). Called
# on the UI thread (it may read widgets); what it gives is awaited on a worker thread's own loop.
Counter = Callable[[str, dict[str, Any]], Awaitable["int | None"]]

SPLIT = (
    ("system", "system", "#8a8a8a"),
    ("tools", "tools", "#d08a2c"),
    ("history", "history", "#3aa675"),
    ("attachments", "attachments", "#a05bd6"),
    ("new_message", "new message", "#3d7fd9"),
)
LEVEL_COLORS = {"ok": ("#1a7f37", "#57c26a"), "amber": ("#b35900", "#e0a040")}
LEVEL_COLORS["red"] = ("#cf222e", "#ff6b6b")
LEVEL_COLORS["unknown"] = ("#6b7075", "#9aa0a6")


def level_color(level: str) -> QColor:
    light, dark = LEVEL_COLORS.get(level, LEVEL_COLORS["unknown"])
    return QColor(dark if is_dark() else light)


def after_body_changes(owner: QObject, panel: RoutePanel, update: Callable[[], None]) -> QTimer:
    """A timer (``owner``'s) that calls ``update`` once the panel's request body has not changed
    for ``DEBOUNCE_MS``: an edit of the form or the JSON body, or of the thread. The gauge and the
    cache warning (cache_warning.py) read the whole body: never on each keystroke, nor while the
    user scrolls the transcript (counting a 200-turn body took 20 ms, a scroll's worst frame)."""
    timer = _AfterBodyChanges(owner, update)
    panel.editor.changed.connect(timer.start)
    if panel.conversation is not None:
        panel.conversation.changed.connect(timer.start)
    return timer


class _AfterBodyChanges(QTimer):
    def __init__(self, owner: QObject, update: Callable[[], None]) -> None:
        super().__init__(owner)
        self.setSingleShot(True)
        self.setInterval(DEBOUNCE_MS)
        self._update = update
        self.timeout.connect(self._due)

    def _due(self) -> None:
        from playground.ui.runtime.idle import scrolling

        if scrolling():
            self.start()  # again, once the transcript is still
        else:
            self._update()


def gauge_text(estimate: ContextEstimate, reported: int | None = None) -> str:
    """``1,234 / 131,072 tok (0.9%) · estimate · reported 1,250`` (or "unknown window"); the
    bar beside it and the tooltip say the rest (the split, where the count came from)."""
    total = f"{estimate.total:,}"
    if estimate.context_window:
        fraction = estimate.fraction or 0.0
        head = f"{total} / {estimate.context_window:,} tok ({fraction:.1%})"
    else:
        head = f"{total} tok · unknown window"
    source = "counted" if estimate.source == "counted" else "estimate"
    tail = f" · reported {reported:,}" if reported is not None else ""
    return f"{head} · {source}{tail}"


class _Bar(QWidget):
    """The window as a bar: each part's share in its colour, the rest empty."""

    def __init__(self) -> None:
        super().__init__()
        self.estimate: ContextEstimate | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(8)

    def sizeHint(self) -> QSize:
        return QSize(120, 8)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(level_color(self.estimate.level if self.estimate else "unknown"))
        painter.drawRect(rect)
        estimate = self.estimate
        if estimate is not None:
            whole = estimate.context_window or max(1, estimate.total)
            split_total = sum(getattr(estimate, name) for name, _w, _c in SPLIT) or 1
            # A counted total is split in the estimate's proportions.
            scale = estimate.total / split_total
            x = rect.left() + 1
            inner = rect.width() - 2
            for name, _words, color in SPLIT:
                width = inner * min(1.0, getattr(estimate, name) * scale / whole)
                width = min(width, rect.right() - 1 - x)
                if width > 0:
                    painter.fillRect(
                        QRectF(x, rect.top() + 1, width, rect.height() - 2), QColor(color)
                    )
                    x += width
        painter.end()


class _Answers(QObject):
    """Carries a count from the worker thread to the UI thread (a queued signal)."""

    counted = Signal(object, object)  # the body, its count (or None)


def _count_off_thread(
    answers: _Answers, body: dict[str, Any], asked: Awaitable[int | None]
) -> None:
    """Await ``asked`` on this worker thread's own event loop: the window's loop never holds a
    socket of it, so closing the window mid-count leaves nothing half-connected behind."""
    import asyncio

    async def wait() -> int | None:
        return await asked

    counted: int | None = None
    with contextlib.suppress(Exception):  # no count: the estimate stays, labelled so
        counted = asyncio.run(wait())
    with contextlib.suppress(RuntimeError):  # the gauge went with its panel meanwhile
        answers.counted.emit(body, counted)


class ContextGauge(QWidget):
    """The context gauge of one panel (``panel.editor.body()`` and ``panel.conversation``)."""

    def __init__(
        self,
        panel: RoutePanel,
        model: ModelSource,
        counter: Counter | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("contextGauge")
        self._panel = weakref.ref(panel)  # weak: no cycle through the panel (thread.py)
        self.route = panel.route
        self.model = model
        self.counter = counter
        self.estimate: ContextEstimate | None = None
        self.reported: int | None = None
        self._asked: Any = None  # the body last asked about (an older answer is dropped)
        self._window_asked: int | None = None
        self._counting = False  # a worker is asking; a newer body waits for it
        self._answers = _Answers(self)
        self._answers.counted.connect(self._counted)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        self.bar = _Bar()
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setStyleSheet("font-size: 11px;")
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.setMinimumWidth(60)
        self.bar.setMaximumWidth(72)  # the words need the room more than the bar
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.label, 4)
        self._timer = after_body_changes(self, panel, self.update_now)
        panel.session.finished.connect(self._finished)
        self.soon()

    def soon(self) -> None:
        """The body changed: count it again once typing pauses (never on each keystroke)."""
        self._timer.start()

    @property
    def level(self) -> str:
        return self.estimate.level if self.estimate is not None else "unknown"

    def update_now(self) -> None:
        from playground.protocol.accounting.canonical import canonical_request
        from playground.protocol.accounting.tokens import estimate_context

        body = self._body()
        if body is None:
            return
        _name, info = self.model()
        window = info.context_window if info is not None else None
        self._show(estimate_context(canonical_request(self.route, body), window))
        self._ask(body, window)

    def _body(self) -> dict[str, Any] | None:
        panel = self._panel()
        if panel is None:
            return None
        try:
            body = panel.editor.body()
        except Exception:  # a half-typed body the form cannot build: the last figure stays
            return None
        if not isinstance(body, dict):
            return None
        name, _info = self.model()
        if name and not body.get("model"):
            body = {**body, "model": name}  # as the request will go (transport/spec.py)
        return body

    def _ask(self, body: dict[str, Any], window: int | None) -> None:
        """The counting endpoint's answer for ``body``, asked on a worker thread (one at a time:
        a body typed meanwhile is asked about when the answer comes, an older answer dropped)."""
        from playground.protocol.accounting.counting import COUNTING_PATHS

        if self.counter is None or self.route not in COUNTING_PATHS:
            return
        self._asked, self._window_asked = body, window
        if self._counting:
            return
        try:
            asked = self.counter(self.route, body)
        except Exception:  # no provider to ask (a base URL missing and the like): the estimate
            return
        self._counting = True
        threading.Thread(
            target=_count_off_thread, args=(self._answers, body, asked), daemon=True
        ).start()

    def _counted(self, body: Any, counted: int | None) -> None:
        from playground.protocol.accounting.canonical import canonical_request
        from playground.protocol.accounting.tokens import estimate_context

        self._counting = False
        if body != self._asked:  # typed on meanwhile: ask about the body as it is now
            self._ask(self._asked, self._window_asked)
            return
        if counted is not None:
            estimate = estimate_context(
                canonical_request(self.route, body), self._window_asked, counted
            )
            self._show(estimate)

    def _finished(self, *_args: object) -> None:
        from playground.protocol.accounting.usage import usage_from_wire

        panel = self._panel()
        state = panel.session.state if panel is not None else None
        usage = usage_from_wire(state.usage) if state is not None else None
        self.reported = usage.total_input if usage is not None else None
        self.soon()

    def _show(self, estimate: ContextEstimate) -> None:
        self.estimate = estimate
        self.bar.estimate = estimate
        self.bar.update()
        self.label.setText(gauge_text(estimate, self.reported))
        color = level_color(estimate.level)
        weight = "font-weight: 600;" if estimate.level in ("amber", "red") else ""
        self.label.setStyleSheet(f"font-size: 11px; color: {color.name()}; {weight}")
        rows = [f"{words}: {getattr(estimate, name):,} tokens" for name, words, _color in SPLIT]
        source = (
            "Counted by the gateway's counting endpoint; the split is the offline estimate's."
            if estimate.source == "counted"
            else "An offline estimate (no tokenizer of the provider's): close for English "
            "prose, exact against the simulator."
        )
        window = (
            f"Context window: {estimate.context_window:,} tokens (from /v1/models)."
            if estimate.context_window
            else "Context window unknown: the gateway's /v1/models does not say it."
        )
        tip = "\n".join([*rows, f"total: {estimate.total:,}", window, source])
        if self.reported is not None:
            tip += f"\nThe last run's reported input: {self.reported:,} tokens."
        self.setToolTip(tip)
