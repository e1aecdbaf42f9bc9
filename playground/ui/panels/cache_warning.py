"""CacheWarning: before sending, says when the request about to go will miss the prompt cache
the thread's last request left: where its prefix changed (both sides in the tooltip), or that
the cache's lifetime has passed since. Hidden otherwise (protocol/accounting/cache.py
``predict_miss``)."""

from __future__ import annotations

import time
import weakref
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from playground.ui.kit.account_words import divergence_lines, place
from playground.ui.kit.theme import is_dark
from playground.ui.panels.context_gauge import ModelSource, after_body_changes

if TYPE_CHECKING:
    from playground.protocol.accounting.cache import Prediction, SentRequest
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["CacheWarning", "warning_text"]

IDLE_CHECK_MS = 1000  # how often an unchanged body is judged again (the lifetime runs out)
SHOWN = ("prefix_changed", "expired")  # a cold or too-short request loses nothing it had


def warning_text(prediction: Prediction, idle: float) -> str:
    """The one sentence, or "" when the request will not miss what the last one left."""
    if prediction.status == "prefix_changed" and prediction.divergence is not None:
        where = place(prediction.divergence.part, prediction.divergence.index)
        return f"This request will miss the cache: {where} changed."
    if prediction.status == "expired":
        minutes = idle / 60
        idle_words = f"{minutes:.0f} min" if minutes >= 1 else f"{idle:.0f} s"
        return f"This request will miss the cache: the cache has expired (idle {idle_words})."
    return ""


class CacheWarning(QLabel):
    """One panel's warning before sending (``panel.editor.body()`` against the last request of
    ``panel.conversation``)."""

    def __init__(
        self,
        panel: RoutePanel,
        model: ModelSource,
        clock: Any = time.monotonic,  # the clock the thread stamps its requests with
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("cacheWarning")
        self._panel = weakref.ref(panel)  # weak: no cycle through the panel (thread.py)
        self.route = panel.route
        self.model = model
        self.clock = clock
        self.prediction: Prediction | None = None
        self._idle_at = 0.0  # when the last request went (clock's seconds)
        self._lifetime: float | None = None  # its cache's lifetime, when the prefix held
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(60)
        color = "#e0a040" if is_dark() else "#b35900"
        self.setStyleSheet(f"color: {color}; font-size: 11px;")
        self.hide()
        self._timer = after_body_changes(self, panel, self.update_now)
        # The lifetime runs out with no edit: an unchanged body is judged again each second.
        self._idle = QTimer(self)
        self._idle.setInterval(IDLE_CHECK_MS)
        self._idle.timeout.connect(self._check_idle)
        panel.session.finished.connect(self.soon)

    def soon(self, *_args: object) -> None:
        self._timer.start()

    def last_request(self) -> SentRequest | None:
        """The thread's last request as sent (its body, when it went, its usage)."""
        from playground.protocol.accounting.cache import SentRequest
        from playground.protocol.accounting.usage import usage_from_wire

        panel = self._panel()
        thread = panel.conversation if panel is not None else None
        if thread is None or not thread.requests or not thread.turns:
            return None
        facts = thread.request_facts[-1] if thread.request_facts else {}
        sent_at = facts.get("sent_at")
        return SentRequest(
            self.route,
            thread.requests[-1].get("body"),
            float(sent_at) if isinstance(sent_at, int | float) else 0.0,
            usage_from_wire(facts.get("usage")),
        )

    def update_now(self) -> None:
        from playground.protocol.accounting.cache import predict_miss
        from playground.protocol.accounting.cache_rules import cache_rules, lifetime_for

        last = self.last_request()
        panel = self._panel()
        if last is None or panel is None or panel.session.is_running:
            self._set(None)
            return
        try:
            body = panel.editor.body()
        except Exception:  # a half-typed body: judged when it builds again
            return
        name, info = self.model()
        if isinstance(body, dict) and name and not body.get("model"):
            body = {**body, "model": name}
        rules = cache_rules(self.route, info)
        prediction = predict_miss(last, self.route, body, self.clock(), rules)
        self._idle_at = last.sent_at
        self._lifetime = (
            lifetime_for(rules, last.canonical, last.body)
            if prediction.status == "likely_hit"
            else None
        )
        self._set(prediction)

    def _check_idle(self) -> None:
        """Judged again only when the lifetime has just passed (or, expired, to count on)."""
        status = self.prediction.status if self.prediction is not None else None
        if status == "expired" or (
            self._lifetime is not None and self.clock() - self._idle_at > self._lifetime
        ):
            self.update_now()

    def _set(self, prediction: Prediction | None) -> None:
        self.prediction = prediction
        idle = self.clock() - self._idle_at
        text = warning_text(prediction, idle) if prediction is not None else ""
        if prediction is not None and prediction.status in ("likely_hit", "expired"):
            self._idle.start()
        else:
            self._idle.stop()
        self.setText(text)
        tip = ""
        if prediction is not None and text:
            tip = prediction.reason
            if prediction.divergence is not None:
                tip += "\n" + "\n".join(divergence_lines(prediction.divergence))
        self.setToolTip(tip)
        self.setVisible(bool(text))
