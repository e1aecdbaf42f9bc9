"""Parameter fields of the request form: spin boxes whose emptied text means "default" (the key
is not sent), and stop sequences typed one per line."""

from __future__ import annotations

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox, QPlainTextEdit, QSpinBox, QWidget

__all__ = ["StopEdit", "UnsetDoubleSpinBox", "UnsetSpinBox", "parse_stops", "show_stops"]

_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


def _is_empty(box: QSpinBox | QDoubleSpinBox, text: str) -> bool:
    """No number typed: only the prefix, suffix and spaces are left."""
    return not text.removeprefix(box.prefix()).removesuffix(box.suffix()).strip()


class UnsetSpinBox(QSpinBox):
    """An integer field whose minimum is its "default" (its special value text): text deleted
    from it goes back to "default" (Qt's box brought the old value back on leaving the field)."""

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        if _is_empty(self, text):
            return QValidator.State.Acceptable, text, pos
        return super().validate(text, pos)

    def valueFromText(self, text: str) -> int:
        return self.minimum() if _is_empty(self, text) else super().valueFromText(text)


class UnsetDoubleSpinBox(QDoubleSpinBox):
    """A number field whose minimum is its "default": emptied, it is "default" again."""

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        if _is_empty(self, text):
            return QValidator.State.Acceptable, text, pos
        return super().validate(text, pos)

    def valueFromText(self, text: str) -> float:
        return self.minimum() if _is_empty(self, text) else super().valueFromText(text)


def parse_stops(text: str) -> list[str] | None:
    """Stop sequences typed one per line, each exactly as typed (a comma is a character like any
    other); ``\\n``, ``\\t`` and ``\\\\`` stand for a line break, a tab and a backslash inside
    one. Blank lines are skipped."""
    out = [_unescape(line) for line in text.split("\n") if line.strip()]
    return out or None


def show_stops(stops: list[str] | None) -> str:
    """The inverse of ``parse_stops``: one sequence per line, escaped."""
    return "\n".join(
        s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t") for s in stops or []
    )


def _unescape(line: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\" and i + 1 < len(line) and line[i + 1] in _ESCAPES:
            out.append(_ESCAPES[line[i + 1]])
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


class StopEdit(QPlainTextEdit):
    """The stop sequences, one per line, about three lines tall; ``text``/``setText`` as a line
    edit has them, so the form reads and fills it the same way."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lines = self.fontMetrics().lineSpacing() * 3
        margins = self.contentsMargins()
        frame = 2 * int(self.document().documentMargin()) + margins.top() + margins.bottom()
        self.setFixedHeight(lines + frame + 2)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:
        if text != self.toPlainText():  # setPlainText moves the cursor and signals even so
            self.setPlainText(text)
