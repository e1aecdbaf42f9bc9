"""SystemSection: the system prompt at the top of a transcript, folded to one line by default."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from playground.ui.kit.elided_label import ElidedLabel

__all__ = ["SystemSection"]


class SystemSection(QWidget):
    """A toggle with the system prompt's first line, and the System box under it when unfolded.

    Folded by default, as the consoles show it: the system prompt is set once and read rarely,
    and the turns need the height. The box is the request form's own (``Field.place``
    "system"), so the body is built from it as from any field."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(2)
        row = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setText("System prompt")
        self.toggle.setToolTip("Show or hide the system prompt sent before the turns")
        self.toggle.toggled.connect(self.set_open)
        row.addWidget(self.toggle)
        self.preview = ElidedLabel()
        self.preview.setStyleSheet("color: gray;")
        row.addWidget(self.preview, 1)
        layout.addLayout(row)
        self.holder = QWidget()
        holder = QVBoxLayout(self.holder)
        holder.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.holder)
        self.holder.hide()
        self.box: QPlainTextEdit | None = None

    def adopt(self, place: QWidget) -> None:
        """``place`` holds the System box (the editor's ``places["system"]``)."""
        layout = self.holder.layout()
        assert layout is not None
        layout.addWidget(place)
        boxes = place.findChildren(QPlainTextEdit)
        self.box = boxes[0] if boxes else None
        if self.box is not None:
            self.box.textChanged.connect(self._show_preview)
        self._show_preview()
        self.show()

    @property
    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, on: bool) -> None:
        if self.toggle.isChecked() != on:
            self.toggle.setChecked(on)  # comes back here through toggled
            return
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.holder.setVisible(on)
        self.preview.setVisible(not on)
        if on and self.box is not None:
            self.box.setFocus()

    def _show_preview(self) -> None:
        text = self.box.toPlainText().strip() if self.box is not None else ""
        first = text.splitlines()[0] if text else ""
        self.preview.setText(f"— {first}" if first else "— none (optional)")
