"""The panel's status line: status (warnings, silence), HTTP, TTFB, TTFT, tok/s, elapsed, the
run's cost and prompt cache, usage."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QHelpEvent, QMouseEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QToolTip, QWidget

from playground.protocol.figures import BY_KEY, RATE
from playground.protocol.timing_format import format_seconds
from playground.ui.kit.theme import is_dark

__all__ = ["SILENCE_SHOWN_AFTER", "StatusLine", "format_usage", "status_color"]

SILENCE_SHOWN_AFTER = 2.0  # seconds without a byte before the line counts the silence
_MARGIN_X, _MARGIN_Y = 4, 2  # the row's margins (left and right, top and bottom)
_SPACING = 10  # between two labels of the row

_COLORS_DARK = {
    "idle": "#9aa0a6",
    "connecting": "#d6b656",
    "streaming": "#6cb6ff",
    "complete": "#57c26a",
    "incomplete": "#e0a040",
    "failed": "#ff6b6b",
    "truncated": "#e0a040",
    "cancelled": "#9aa0a6",
}
_COLORS_LIGHT = {
    "idle": "#6b7075",
    "connecting": "#9a7a10",
    "streaming": "#1f6feb",
    "complete": "#1a7f37",
    "incomplete": "#b35900",
    "failed": "#cf222e",
    "truncated": "#b35900",
    "cancelled": "#6b7075",
}


def status_color(status: str) -> str:
    table = _COLORS_DARK if is_dark() else _COLORS_LIGHT
    return table.get(status, table["idle"])


def format_usage(usage: dict[str, Any] | None) -> str:
    """Usage as the server reported it, in its own words (in/out/total whichever names it used)."""
    if not usage:
        return ""
    ins = usage.get("prompt_tokens", usage.get("input_tokens"))
    outs = usage.get("completion_tokens", usage.get("output_tokens"))
    total = usage.get("total_tokens")
    parts = []
    if ins is not None:
        parts.append(f"{ins} in")
    if outs is not None:
        parts.append(f"{outs} out")
    if total is not None and (ins is None or outs is None):  # else it is their sum: room saved
        parts.append(f"{total} total")
    if not parts:  # an unfamiliar shape: show its scalar fields as they came
        parts = [f"{k} {v}" for k, v in usage.items() if isinstance(v, int | float | str)][:4]
    return " · ".join(parts)


def _whole_parts(text: str, metrics: QFontMetrics, room: int) -> str:
    """The leading " · "-separated parts of ``text`` that fit ``room`` whole, "…" standing for
    the rest; "" when not even the first part fits."""
    parts = text.split(" · ")
    for count in range(len(parts), 0, -1):
        shown = " · ".join(parts[:count]) + (" · …" if count < len(parts) else "")
        if metrics.horizontalAdvance(shown) + 2 <= room:
            return shown
    return ""


class _StatusWord(QLabel):
    """The status word: it answers its own tooltip and click, so no event filter ties it to the
    status line (a filter on a child can be called while its parent is being destroyed)."""

    clicked = Signal()
    tooltipAsked = Signal(object)  # the global position of the help event

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            self.tooltipAsked.emit(event.globalPos())
            return True
        return super().event(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mouseReleaseEvent(event)


class StatusLine(QWidget):
    """A single row of small labels; updated once per frame by the panel.

    When the row is narrower than its figures, the least important ones step aside (HTTP and
    elapsed stay longest, usage goes first); the tooltip then carries the full text. No figure
    is ever squeezed under its width, so nothing is drawn over anything else.

    The row places its labels itself (``_place``), with no layout: in a layout, a label shown
    or hidden (each figure appears once per run, in the run's first frames) or a status word
    that changes lays the row out, and the row's layout then asks the one above it, up to the
    window (QLayout::activate ends in updateGeometry), whose relayout repainted most of it: in
    a profile of a run's first frames (12-22 ms on a 2-core AMD EPYC) that repaint took 7-9 ms.
    Without a layout the request ends here: the row's own size never changes (its hints are
    constant).
    """

    warningsClicked = Signal()  # the user clicked "complete · N warnings"

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The row's minimum is the status word alone (minimumSizeHint); the figures that do not
        # fit are hidden by _fit.
        self.status = _StatusWord("idle", self)
        self.http = QLabel("", self)
        self.ttfb = QLabel("", self)
        self.ttft = QLabel("", self)
        self.rate = QLabel("", self)
        self.elapsed = QLabel("", self)
        self.usage = QLabel("", self)
        # The ended run's cost and prompt cache (run_accounts.py puts them, with their tooltips).
        self.cost = QLabel("", self)
        self.cache = QLabel("", self)
        # Left to right, usage last taking the rest of the row.
        self._order = (
            self.status,
            self.http,
            self.ttfb,
            self.ttft,
            self.rate,
            self.elapsed,
            self.cost,
            self.cache,
        )
        # Which figures keep their room longest when the row is short: the first ones; usage
        # gives way first.
        self._importance = (
            self.http,
            self.elapsed,
            self.cost,
            self.rate,
            self.ttft,
            self.ttfb,
            self.cache,
            self.usage,
        )
        # Usage may be long: it gives way (clipped, full text in the tooltip) rather than pushing.
        self.usage.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.usage.setMinimumWidth(40)
        # The figures change every frame while streaming: each keeps a fixed size, room for its
        # widest usual value, so nothing after it moves as its value grows. A value wider still
        # ("TTFB 1046 ms", "84544.4 tok/s") widens its label (see _put): a figure is shown whole
        # or, when the row has no room for it, not at all.
        metrics = QFontMetrics(self.http.font())
        self._usual_width: dict[QLabel, int] = {}
        for label, widest in (
            (self.http, "HTTP 000"),
            (self.ttfb, "TTFB 000 ms"),
            (self.ttft, "TTFT 0000 ms"),
            (self.rate, "0000.0 tok/s"),
            (self.elapsed, "00.00 s"),
            (self.cost, "$0.000000"),
            (self.cache, "cache hit: 0000 tok (00%)"),
        ):
            label.setText(widest)
            label.setFixedSize(metrics.horizontalAdvance(widest) + 2, label.sizeHint().height())
            self._usual_width[label] = label.width()
            label.setText("")
            label.setVisible(False)  # shown with its first value (see _put)
        self.usage.setVisible(False)
        # The status word keeps room for its longest value, so it never clips and never moves.
        bold = QFont(self.status.font())
        bold.setWeight(QFont.Weight.DemiBold)
        self._bold = QFontMetrics(bold)
        status_width = max(self._bold.horizontalAdvance(f"● {name}") for name in _COLORS_LIGHT)
        self._status_min = status_width + 4
        self.status.setMinimumWidth(self._status_min)
        self._status = self._style = self._note = ""
        self._warnings = self._errors = 0
        self._texts: dict[QLabel, str] = dict.fromkeys(
            (self.http, self.ttfb, self.ttft, self.rate, self.elapsed, self.cost, self.cache),
            "",
        )
        self._texts[self.usage] = ""  # last: text() lists the figures in this order
        self._usage_tip = ""
        self.set_status("idle")
        self.status.clicked.connect(self._status_clicked)
        self.status.tooltipAsked.connect(self._status_tooltip)
        self.ttfb.setToolTip(BY_KEY["first_byte"].tip)
        self.ttft.setToolTip(BY_KEY["first_token"].tip)
        self.elapsed.setToolTip("Elapsed time since the request was sent")
        self.usage.setToolTip("Usage as the server reported it")
        self.rate.setToolTip(RATE.tip)

    # ---- what it says ---------------------------------------------------------------------------
    def status_text(self) -> str:
        """The status word with its warnings or silence, as shown (without the dot)."""
        text = self._status
        if self._status == "complete":
            # Counted by the severity each finding code declares (protocol/findings.py), the
            # same the inspector colours its rows with.
            for count, word in ((self._errors, "error"), (self._warnings, "warning")):
                if count:
                    text += f" · {count} {word}{'s' if count != 1 else ''}"
        if self._note:
            text += f" · {self._note}"
        return text

    def text(self) -> str:
        """The whole line, every figure included (the tooltip and the headless dump)."""
        figures = [self._texts[label] for label in self._texts if self._texts[label]]
        return " · ".join([self.status_text(), *figures])

    def set_status(
        self, status: str, *, warnings: int = 0, errors: int = 0, note: str = ""
    ) -> None:
        """``errors``, ``warnings``: findings of a completed stream of that severity; ``note``:
        e.g. "no bytes for 3 s"."""
        # Once per frame while streaming: a style sheet set again (even the same one) re-polishes
        # the label and lays the row out anew, so only a change is applied.
        warned = status == "complete" and (warnings > 0 or errors > 0)
        shown = ("failed" if errors else "incomplete") if warned else status
        style = f"color: {status_color(shown)}; font-weight: 600;"
        now = (self._status, self._warnings, self._errors, self._note, self._style)
        if (status, warnings, errors, note, style) == now:
            return
        self._status, self._warnings, self._errors = status, warnings, errors
        self._note, self._style = note, style
        text = f"● {self.status_text()}"
        self.status.setText(text)
        self.status.setStyleSheet(style)
        self.status.setMinimumWidth(max(self._status_min, self._bold.horizontalAdvance(text) + 4))
        self.status.setCursor(
            Qt.CursorShape.PointingHandCursor if warned else Qt.CursorShape.ArrowCursor
        )
        self._fit()

    def set_figures(
        self,
        *,
        http_status: int | None,
        ttfb: float | None,
        ttft: float | None,
        tokens_per_s: float | None,
        elapsed: float | None,
        usage: dict[str, Any] | None,
    ) -> None:
        changed = self._put(self.http, f"HTTP {http_status}" if http_status is not None else "")
        # Written as every other view writes them (protocol/timing_format.format_seconds).
        changed |= self._put(self.ttfb, f"TTFB {format_seconds(ttfb)}" if ttfb is not None else "")
        changed |= self._put(self.ttft, f"TTFT {format_seconds(ttft)}" if ttft is not None else "")
        changed |= self._put(self.rate, f"{tokens_per_s:.1f} tok/s" if tokens_per_s else "")
        changed |= self._put(self.elapsed, f"{elapsed:.2f} s" if elapsed is not None else "")
        text = format_usage(usage)
        changed |= self._put(self.usage, text)
        tip = f"Usage as the server reported it: {text}" if text else ""
        if tip != self._usage_tip:
            self._usage_tip = tip
            self.usage.setToolTip(tip)
        if changed:
            self._fit()

    def set_accounts(self, cost: str, cost_tip: str, cache: str, cache_tip: str) -> None:
        """The ended run's cost ("$0.0012", "cost unknown") and cache ("cache hit: 120 tok
        (85%)"), each with its tooltip (the arithmetic; the reason and divergence)."""
        changed = self._put(self.cost, cost)
        changed |= self._put(self.cache, cache)
        self.cost.setToolTip(cost_tip)
        self.cache.setToolTip(cache_tip)
        if changed:
            self._fit()

    def _put(self, label: QLabel, text: str) -> bool:
        """Show ``text``; True when the figure appeared or went (the row must be fitted again)."""
        old = self._texts.get(label)
        if text == old:  # no call into Qt for a figure that did not change
            return False
        self._texts[label] = text
        label.setText(text)
        # A figure the route does not have (tok/s for images) leaves no gap. This changes the
        # row's size once per figure and run, early, not with every new value.
        widened = self._widen(label, text)
        return widened or bool(text) != bool(old)

    def _widen(self, label: QLabel, text: str) -> bool:
        """Give ``label`` room for all of ``text`` if its usual width is short of it; True when
        it grew. It only grows (a figure that narrows again keeps its place steady) until the
        run's figures are cleared."""
        usual = self._usual_width.get(label)
        if usual is None:  # usage: elastic, elided by _fit with its whole text in the tooltip
            return False
        need = label.fontMetrics().horizontalAdvance(text) + 2
        if need <= label.width():
            return False
        label.setFixedWidth(need)
        return True

    def clear(self) -> None:
        for label, usual in self._usual_width.items():  # the next run starts at the usual widths
            if label.width() != usual:
                label.setFixedWidth(usual)
        self.set_status("idle")
        self.set_accounts("", "", "", "")
        self.set_figures(
            http_status=None, ttfb=None, ttft=None, tokens_per_s=None, elapsed=None, usage=None
        )

    def shown_figures(self) -> dict[str, tuple[str, int, int]]:
        """Each visible figure: its text, the width its text needs and the width it is shown at."""
        names = {self.http: "http", self.ttfb: "ttfb", self.ttft: "ttft", self.rate: "rate"}
        names |= {self.elapsed: "elapsed", self.usage: "usage"}
        names |= {self.cost: "cost", self.cache: "cache"}
        return {
            names[label]: (
                label.text(),
                label.fontMetrics().horizontalAdvance(label.text()),
                label.width(),
            )
            for label in self._importance
            if label.isVisibleTo(self)
        }

    # ---- fitting the row ------------------------------------------------------------------------
    def minimumSizeHint(self) -> QSize:
        height = self.status.sizeHint().height() + 2 * _MARGIN_Y
        return QSize(self._status_min + 2 * _MARGIN_X, height)

    def sizeHint(self) -> QSize:
        # Room for every figure, constant: a changing hint would lay the panel out anew.
        figures = sum(width + _SPACING for width in self._usual_width.values())
        hint = self.minimumSizeHint()
        return QSize(hint.width() + figures + _SPACING + 160, hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """Show the figures that fit, in order of importance; hide the rest (they are in the
        tooltip). Runs on a resize or when a figure appears, not with every new value."""
        room = self.width() - 2 * _MARGIN_X - self.status.minimumWidth()
        full = True  # every figure so far fits: a less important one after a hidden one would
        # read as if the hidden one were not there
        for label in self._importance:
            if not self._texts[label] or not full:
                want = False
            elif label is self.usage:
                # Last and elastic: it takes the rest, with as many of its figures as fit whole
                # ("9 in · …"), never one cut mid-word; none fits: it steps aside.
                shown = _whole_parts(self._texts[label], label.fontMetrics(), room - _SPACING)
                want = bool(shown)
                if want and label.text() != shown:
                    label.setText(shown)
            else:
                need = _SPACING + label.width()
                want = full = need <= room
                if want:
                    room -= need
            if label.isVisibleTo(self) != want:
                label.setVisible(want)
        self._place()

    def _place(self) -> None:
        """Put the shown labels in a row, left to right, each at its own width and centred in
        the row's height; usage takes what is left."""
        x = _MARGIN_X
        height = self.height()
        for label in (*self._order, self.usage):
            if label is not self.status and not label.isVisibleTo(self):
                continue
            if label is self.status:
                width = self.status.minimumWidth()
            elif label is self.usage:
                width = max(label.minimumWidth(), self.width() - _MARGIN_X - x)
            else:
                width = label.width()
            tall = min(label.sizeHint().height(), max(0, height - 2 * _MARGIN_Y))
            label.setGeometry(x, (height - tall) // 2, width, tall)
            x += width + _SPACING

    def _status_tooltip(self, where: QPoint) -> None:
        tip = f"Status of the last run: {self.text()}"
        if self._status == "complete" and (self._warnings or self._errors):
            tip += "\nClick to see the findings in the inspector."
        QToolTip.showText(where, tip, self.status)

    def _status_clicked(self) -> None:
        if self._status == "complete" and (self._warnings or self._errors):
            self.warningsClicked.emit()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            QToolTip.showText(event.globalPos(), self.text(), self)  # a hidden figure's full text
            return True
        return super().event(event)
