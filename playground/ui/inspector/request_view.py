"""The run's request and response, as text: method, URL, headers (redacted again), pretty body."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from playground.protocol import safe_json
from playground.transport.redact import REDACTED, SECRET_HEADERS, redact_pairs
from playground.ui.widgets.json_stream import pretty

__all__ = ["ExchangeView", "format_body", "format_request", "format_response", "redact_url"]

_URL_SECRET = re.compile(r"([?&](?:api[_-]?key|key|token|access_token)=)[^&#]*", re.IGNORECASE)
_BODY_SECRET_KEYS = frozenset(
    {"api_key", "apikey", "key", "token", "access_token", "authorization"}
)
BODY_LIMIT = 512 * 1024


def redact_url(url: str) -> str:
    return _URL_SECRET.sub(lambda m: m.group(1) + REDACTED, url)


def _redact_json(value: object) -> object:
    if isinstance(value, dict):
        return {
            k: (
                REDACTED
                if str(k).lower() in _BODY_SECRET_KEYS and isinstance(v, str)
                else _redact_json(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_redact_json(v) for v in value]
    return value


def format_body(body: bytes | None) -> str:
    """Pretty JSON when the body is JSON; text otherwise; a note for binary (multipart) bodies."""
    if not body:
        return "(no body)"
    try:
        # Compact first, then laid out with an indent that stops growing (json_stream.pretty):
        # only as much as is shown is laid out, and deep nesting cannot multiply the text.
        compact = json.dumps(_redact_json(safe_json.loads(body)), ensure_ascii=False)
        return pretty(compact[:BODY_LIMIT])[:BODY_LIMIT]
    except (ValueError, UnicodeDecodeError):
        pass
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
        if name.lower() in SECRET_HEADERS and REDACTED not in value:
            value = REDACTED
        lines.append(f"{name}: {value}")
    return "\n".join(lines) if lines else "(none)"


def format_request(method: str, url: str, headers: dict[str, str], body: bytes | None) -> str:
    return (
        f"{method} {redact_url(url)}\n\n── Headers ──\n{_headers(headers.items())}\n\n"
        f"── Body ──\n{format_body(body)}"
    )


def format_response(status: int | None, headers: list[tuple[str, str]], body: bytes | None) -> str:
    head = f"HTTP {status}" if status is not None else "No response (the request did not get one)"
    text = f"{head}\n\n── Headers ──\n{_headers(headers)}"
    if body is not None:
        text += f"\n\n── Body ──\n{format_body(body)}"
    return text


class ExchangeView(QPlainTextEdit):
    """A monospace, read-only text view of a request or a response."""

    def __init__(self, placeholder: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlaceholderText(placeholder)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
