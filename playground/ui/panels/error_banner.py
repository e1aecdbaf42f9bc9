"""The panel's banner: an error before or during a stream, Retry-After countdown, stall + Stop."""

from __future__ import annotations

import math

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QStyle, QWidget

from playground.ui.kit.theme import is_dark

__all__ = ["MAX_CHARS", "ErrorBanner"]

MAX_CHARS = 400  # the banner's sentence; longer messages end in "…"

_KIND_COLORS = {  # (dark background, light background)
    "error": ("#4a1f22", "#ffebe9"),
    "warning": ("#4a3b16", "#fff8c5"),
    "info": ("#1f3447", "#ddf4ff"),
}


class ErrorBanner(QFrame):
    """Hidden until something needs saying; never a modal dialog (no traceback dialogs)."""

    retryRequested = Signal()
    stopRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self._built = False
        self._remaining = 0
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)
        self.kind = ""
        self.hide()

    def _build(self) -> None:
        """The icon, sentence, countdown and buttons, made with the first message (a panel
        usually has none; the first frame shows no banner)."""
        if self._built:
            return
        self._built = True
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.icon = QLabel()
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(
            self.label.textInteractionFlags()
            | self.label.textInteractionFlags().TextSelectableByMouse
        )
        self.countdown = QLabel()
        self.retry = QPushButton("Retry")
        self.retry.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_BrowserReload))
        self.stop = QPushButton("Stop")
        self.stop.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaStop))
        self.close_button = QPushButton()
        self.close_button.setFlat(True)
        self.close_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_TitleBarCloseButton)
        )
        self.close_button.setToolTip("Dismiss")
        layout.addWidget(self.icon)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.countdown)
        layout.addWidget(self.retry)
        layout.addWidget(self.stop)
        layout.addWidget(self.close_button)
        self.retry.clicked.connect(self.retryRequested.emit)
        self.stop.clicked.connect(self.stopRequested.emit)
        self.close_button.clicked.connect(self.hide)

    @property
    def text(self) -> str:
        return self.label.text() if self._built else ""

    def show_message(
        self,
        kind: str,
        text: str,
        *,
        retry: bool = False,
        retry_after: float | None = None,
        stop: bool = False,
    ) -> None:
        """kind: error | warning | info; retry_after: seconds before Retry is enabled."""
        self._build()
        self.kind = kind
        dark, light = _KIND_COLORS.get(kind, _KIND_COLORS["info"])
        background = dark if is_dark() else light
        self.setStyleSheet(
            f"QFrame#errorBanner {{ background: {background}; border-radius: 4px; }}"
        )
        pixmap = {
            "error": QStyle.StandardPixmap.SP_MessageBoxCritical,
            "warning": QStyle.StandardPixmap.SP_MessageBoxWarning,
        }.get(kind, QStyle.StandardPixmap.SP_MessageBoxInformation)
        self.icon.setPixmap(self.style().standardIcon(pixmap).pixmap(20, 20))
        # One readable sentence, whatever the server sent: newlines folded, length capped (a
        # 200 KB message would freeze the word-wrapping label). The tooltip keeps more of it.
        flat = " ".join(text.split())
        self.label.setText(flat if len(flat) <= MAX_CHARS else flat[: MAX_CHARS - 1] + "…")
        self.label.setToolTip(flat[:4000] if len(flat) > MAX_CHARS else "")
        self.retry.setVisible(retry)
        self.stop.setVisible(stop)
        self._timer.stop()
        self.countdown.clear()
        if retry and retry_after and retry_after > 0:
            self._remaining = math.ceil(retry_after)
            self.retry.setEnabled(False)
            self._show_countdown()
            self._timer.start()
        else:
            self.retry.setEnabled(True)
        self.show()

    def clear(self) -> None:
        self._timer.stop()
        self.kind = ""
        if self._built:
            self.label.clear()
            self.countdown.clear()
        self.hide()

    @property
    def remaining(self) -> int:
        return self._remaining

    def _show_countdown(self) -> None:
        self.countdown.setText(f"retry in {self._remaining} s")

    def _tick(self) -> None:
        self._remaining -= 1
        if self._remaining <= 0:
            self._timer.stop()
            self.countdown.setText("you may retry now")
            self.retry.setEnabled(True)
        else:
            self._show_countdown()
