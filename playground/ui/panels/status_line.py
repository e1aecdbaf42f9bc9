"""The panel's status line: live status, HTTP status, TTFB, TTFT, tokens/s, elapsed and usage."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

from playground.ui.theme import is_dark

__all__ = ["StatusLine", "format_usage", "status_color"]

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


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


class StatusLine(QWidget):
    """A single row of small labels; updated once per frame by the panel."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.setSpacing(12)
        self.status = QLabel("idle")
        self.http = QLabel("")
        self.ttfb = QLabel("")
        self.ttft = QLabel("")
        self.rate = QLabel("")
        self.elapsed = QLabel("")
        self.usage = QLabel("")
        for label in (self.status, self.http, self.ttfb, self.ttft, self.rate, self.elapsed):
            layout.addWidget(label)
        layout.addWidget(self.usage, 1)
        # Usage may be long: it gives way (clipped, full text in the tooltip) rather than pushing.
        self.usage.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.usage.setMinimumWidth(40)
        # The figures change every frame while streaming, and a label's minimum width follows
        # its text: the row would force the panel wider whenever a figure grows, and the answer
        # beside it would lay its whole document out again at the new width (issue 7: 100 ms
        # with a long answer). Each figure keeps a fixed width instead, room for its widest
        # usual value, so the row never changes size and no figure is cut.
        metrics = QFontMetrics(self.http.font())
        for label, widest in (
            (self.http, "HTTP 000"),
            (self.ttfb, "TTFB 000 ms"),
            (self.ttft, "TTFT 0000 ms"),
            (self.rate, "0000.0 tok/s"),
            (self.elapsed, "00.00 s"),
        ):
            label.setFixedWidth(metrics.horizontalAdvance(widest) + 2)
            label.setVisible(False)  # shown with its first value (see _put)
        # The status word keeps room for its longest value, so it never clips and never moves.
        bold = QFont(self.status.font())
        bold.setWeight(QFont.Weight.DemiBold)
        metrics = QFontMetrics(bold)
        status_width = max(metrics.horizontalAdvance(f"● {name}") for name in _COLORS_LIGHT)
        self.status.setMinimumWidth(status_width + 4)
        self._status = self._style = ""
        self._texts: dict[QLabel, str] = dict.fromkeys(
            (self.http, self.ttfb, self.ttft, self.rate, self.elapsed), ""
        )
        self._usage_tip = ""
        self.set_status("idle")
        self.status.setToolTip("Status of the last run")
        self.ttfb.setToolTip("Time to first byte of the body, since the request was sent")
        self.ttft.setToolTip("Time to first token (text or thinking), since the request was sent")
        self.elapsed.setToolTip("Elapsed time since the request was sent")
        self.usage.setToolTip("Usage as the server reported it")
        self.rate.setToolTip(
            "Tokens per second since the first token (usage when reported, else deltas)"
        )

    def set_status(self, status: str) -> None:
        # Once per frame while streaming: a style sheet set again (even the same one) re-polishes
        # the label and lays the row out anew, so only a change is applied (issue 7).
        style = f"color: {status_color(status)}; font-weight: 600;"
        if status == self._status and style == self._style:
            return
        self._status, self._style = status, style
        self.status.setText(f"● {status}")
        self.status.setStyleSheet(style)

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
        self._put(self.http, f"HTTP {http_status}" if http_status is not None else "")
        self._put(self.ttfb, f"TTFB {_ms(ttfb)}" if ttfb is not None else "")
        self._put(self.ttft, f"TTFT {_ms(ttft)}" if ttft is not None else "")
        self._put(self.rate, f"{tokens_per_s:.1f} tok/s" if tokens_per_s else "")
        self._put(self.elapsed, f"{elapsed:.2f} s" if elapsed is not None else "")
        text = format_usage(usage)
        self.usage.setText(text)  # QLabel.setText returns early on the same text
        tip = f"Usage as the server reported it: {text}" if text else ""
        if tip != self._usage_tip:
            self._usage_tip = tip
            self.usage.setToolTip(tip)

    def _put(self, label: QLabel, text: str) -> None:
        old = self._texts.get(label)
        if text != old:  # no call into Qt for a figure that did not change
            self._texts[label] = text
            label.setText(text)
            if bool(text) != bool(old):
                # A figure the route does not have (tok/s for images) leaves no gap. This changes
                # the row's size once per figure and run, early, not with every new value.
                label.setVisible(bool(text))

    def clear(self) -> None:
        self.set_status("idle")
        self.set_figures(
            http_status=None, ttfb=None, ttft=None, tokens_per_s=None, elapsed=None, usage=None
        )
