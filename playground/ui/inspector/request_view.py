"""The run's request and response, as text: method, URL, headers (redacted again), pretty body."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from PySide6.QtCore import QPoint
from PySide6.QtGui import QContextMenuEvent, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QMenu, QPlainTextEdit, QWidget

from playground.protocol import safe_json
from playground.protocol.conversation.dump import redact_base64
from playground.protocol.redaction import REDACTED, is_secret_field, is_secret_name, redact_pairs
from playground.protocol.redaction import redact_url as _redact_url
from playground.ui.views.json_stream import pretty

__all__ = ["ExchangeView", "format_body", "format_request", "format_response", "redact_url"]

BODY_LIMIT = 512 * 1024


def redact_url(url: str) -> str:
    """The URL as shown: credential query parameters redacted by the one rule."""
    return _redact_url(url)


def _redact_json(value: object) -> object:
    if isinstance(value, dict):
        return {
            k: (REDACTED if is_secret_field(str(k)) and isinstance(v, str) else _redact_json(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact_json(v) for v in value]
    return value


def format_body(body: bytes | None, *, whole: bool = False) -> str:
    """Pretty JSON when the body is JSON; text otherwise; a note for binary (multipart) bodies.

    Long base64 strings read ``"<N bytes base64>"`` as in ``--dump-state`` (one image made 12.9
    MB of text) and the text stops at ``BODY_LIMIT``; ``whole``: every byte of it, for a copy."""
    if not body:
        return "(no body)"
    limit = None if whole else BODY_LIMIT
    try:
        # Compact first, then laid out with an indent that stops growing (json_stream.pretty):
        # only as much as is shown is laid out, and deep nesting cannot multiply the text.
        value = _redact_json(safe_json.loads(body))
        shown = value if whole else redact_base64(value)
        compact = json.dumps(shown, ensure_ascii=False)
        return pretty(compact if whole else compact[:BODY_LIMIT])[:limit]
    except (ValueError, UnicodeDecodeError):
        pass
    if whole:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return f"({len(body):,} bytes of binary or multipart data)"
    head = body[:BODY_LIMIT]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return f"({len(body):,} bytes of binary or multipart data)"
    more = f"\n… {len(body) - BODY_LIMIT:,} more bytes" if len(body) > BODY_LIMIT else ""
    return text + more


def _headers(pairs: Iterable[tuple[str, str]]) -> str:
    # The session hands them over redacted already; redact again so no path can leak a key.
    lines = []
    for name, value in redact_pairs(list(pairs)):
        if is_secret_name(name) and REDACTED not in value:
            value = REDACTED
        lines.append(f"{name}: {value}")
    return "\n".join(lines) if lines else "(none)"


def format_request(
    method: str, url: str, headers: dict[str, str], body: bytes | None, *, whole: bool = False
) -> str:
    return (
        f"{method} {redact_url(url)}\n\n── Headers ──\n{_headers(headers.items())}\n\n"
        f"── Body ──\n{format_body(body, whole=whole)}"
    )


def format_response(
    status: int | None,
    headers: list[tuple[str, str]],
    body: bytes | None,
    *,
    whole: bool = False,
) -> str:
    head = f"HTTP {status}" if status is not None else "No response (the request did not get one)"
    text = f"{head}\n\n── Headers ──\n{_headers(headers)}"
    if body is not None:
        text += f"\n\n── Body ──\n{format_body(body, whole=whole)}"
    return text


class ExchangeView(QPlainTextEdit):
    """A monospace, read-only text view of a request or a response; its context menu copies the
    whole text, the base64 the view elides included (keys still redacted)."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # What "Copy full …" copies (None: nothing to copy yet), and the action's title.
        self.full_text: Callable[[], str] | None = None
        self.copy_title = "Copy full request"
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlaceholderText(placeholder)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)

    def copy_full(self) -> None:
        """Put the whole text on the clipboard (the view shows long base64 as its size)."""
        if self.full_text is not None:
            QGuiApplication.clipboard().setText(self.full_text())

    def context_menu(self, pos: QPoint) -> QMenu:
        """The text view's own menu, with "Copy full request" (or response) last."""
        menu = self.createStandardContextMenu(pos)
        menu.addSeparator()
        copy = menu.addAction(self.copy_title)
        copy.setEnabled(self.full_text is not None)
        copy.triggered.connect(self.copy_full)
        return menu

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.context_menu(event.pos())
        menu.exec(event.globalPos())
        menu.deleteLater()
