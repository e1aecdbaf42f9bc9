"""The exported request's dialog: the code (already on the clipboard) with a Copy button."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

__all__ = ["FORMAT_TITLES", "ExportDialog", "show_export"]

FORMAT_TITLES = {"curl": "curl", "python": "Python", "typescript": "TypeScript"}


class ExportDialog(QDialog):
    """Shows exported code (already copied to the clipboard) with a Copy button."""

    def __init__(self, title: str, code: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(760, 520)
        self.code = QPlainTextEdit(code)
        self.code.setReadOnly(True)
        self.code.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        font = self.code.font()
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
        self.code.setFont(font)
        note = QLabel(
            "Copied to the clipboard. The API key is read from an environment variable, and "
            "$PLAYGROUND_BASE_URL overrides the base URL."
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(code))
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.code, 1)
        layout.addWidget(buttons)


def show_export(parent: QWidget | None, fmt: str, code: str, *, interactive: bool = True) -> None:
    """``code`` onto the clipboard, and shown in a dialog when a person is there to read it."""
    QGuiApplication.clipboard().setText(code)
    if interactive:
        dialog = ExportDialog(f"Request as {FORMAT_TITLES.get(fmt, fmt)}", code, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
