"""The request form's folded Advanced group: a toggle, and under it the rows of the folded fields,
built when it first opens (folded, the first frame shows only its toggle: startup time)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QToolButton, QWidget

__all__ = ["AdvancedGroup"]


class AdvancedGroup:
    """The toggle and the group's body, added to ``form``; ``build`` makes the rows, once."""

    def __init__(self, form: QFormLayout, build: Callable[[QFormLayout], None]) -> None:
        self._build = build
        self.built = False
        self.toggle = QToolButton()
        self.toggle.setText("Advanced")
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.body = QWidget()
        inner = QFormLayout(self.body)
        inner.setContentsMargins(8, 0, 0, 0)
        inner.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # The column was sized before this group opened (route_panel.py): a row too long for
        # it puts its field under its label instead of running past the column's edge.
        inner.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.form = inner
        self.body.hide()
        self.toggle.toggled.connect(self.show)
        form.addRow(self.toggle)
        form.addRow(self.body)

    def ensure_built(self) -> None:
        """The rows, if not built yet (a body sets one of them, or someone reads one)."""
        if not self.built:
            self.built = True
            self._build(self.form)

    def show(self, on: bool) -> None:
        """Unfold (building the rows the first time) or fold the group."""
        if on:
            self.ensure_built()
        self.toggle.setChecked(on)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.body.setVisible(on)
