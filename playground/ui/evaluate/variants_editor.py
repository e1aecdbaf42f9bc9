"""The variants table (1-6 columns of the grid) and the checks list, each check validated by
the scorer registry's own schema (``evaluate.scorers.check_problem``)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, Final

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.evaluate.model import CONVERSATIONAL_ROUTES, MAX_VARIANTS, SuiteError
from playground.evaluate.scorers import SCORERS, check_problem
from playground.ui.evaluate.cases_editor import cell_text, parse_json_text, row_data, set_row_data

__all__ = ["ChecksEditor", "VariantsEditor"]

_COLUMNS: Final = ("name", "route", "model", "provider", "system", "prompt", "params")
_BAD: Final = QColor("#d0342c")


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class VariantsEditor(QWidget):
    """A row per variant: from the current panel, from a preset, or a duplicate to edit.

    ``from_panel`` gives the current panel as a variant's JSON (ValueError says why not);
    ``presets`` lists preset names and ``from_preset`` gives one as a variant's JSON.
    """

    changed = Signal()
    message = Signal(str)

    def __init__(
        self,
        from_panel: Callable[[str], dict[str, Any]] | None = None,
        presets: Callable[[], list[str]] | None = None,
        from_preset: Callable[[str], dict[str, Any]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.from_panel, self.presets, self.from_preset = from_panel, presets, from_preset
        self.table = QTableWidget(0, len(_COLUMNS))
        self.table.setHorizontalHeaderLabels(list(_COLUMNS))
        header = self.table.horizontalHeader()
        for column, key in enumerate(_COLUMNS):  # the long texts get the room
            if key in ("system", "prompt"):
                header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        header.resizeSection(_COLUMNS.index("params"), 240)
        self.table.itemChanged.connect(lambda *_: self.changed.emit())
        panel = QPushButton("From the current panel")
        panel.clicked.connect(self.add_from_panel)
        self.preset_button = QToolButton()
        self.preset_button.setText("From a preset")
        self.preset_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.preset_menu = QMenu(self.preset_button)
        self.preset_menu.aboutToShow.connect(self._fill_presets)
        self.preset_button.setMenu(self.preset_menu)
        duplicate = QPushButton("Duplicate")
        duplicate.clicked.connect(self.duplicate_selected)
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected)
        buttons = QHBoxLayout()
        for widget in (panel, self.preset_button, duplicate, remove):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        note = QLabel(
            f"Up to {MAX_VARIANTS} variants, one grid column each; route is one of "
            f"{', '.join(CONVERSATIONAL_ROUTES)}; params is JSON."
        )
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(note)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)

    def load(self, variants: list[dict[str, Any]]) -> None:
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for variant in variants:
            self._append(variant)
        self.table.blockSignals(False)
        self.changed.emit()

    def _append(self, variant: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for column, key in enumerate(_COLUMNS):
            self.table.setItem(row, column, QTableWidgetItem(_text(variant.get(key))))
        kept = {k: copy.deepcopy(v) for k, v in variant.items() if k not in _COLUMNS}
        set_row_data(self.table, row, kept)

    def read(self) -> list[dict[str, Any]]:
        """The variants' JSON; SuiteError for a params cell that is not JSON."""
        out = []
        for row in range(self.table.rowCount()):
            cells = {k: cell_text(self.table, row, c) for c, k in enumerate(_COLUMNS)}
            variant: dict[str, Any] = {
                "name": cells["name"].strip(),
                "route": cells["route"].strip() or "chat",
                "model": cells["model"].strip(),
            }
            for key in ("system", "prompt"):
                if cells[key]:
                    variant[key] = cells[key]
            if cells["provider"].strip():
                variant["provider"] = cells["provider"].strip()
            if cells["params"].strip():
                variant["params"] = parse_json_text(cells["params"], f"variants[{row}].params")
            variant.update(row_data(self.table, row) or {})
            out.append(variant)
        return out

    def names(self) -> list[str]:
        return [cell_text(self.table, r, 0) for r in range(self.table.rowCount())]

    def add(self, variant: dict[str, Any]) -> bool:
        if self.table.rowCount() >= MAX_VARIANTS:
            self.message.emit(f"A grid has at most {MAX_VARIANTS} variants.")
            return False
        taken, name, n = set(self.names()), variant.get("name") or "variant", 2
        while name in taken:
            name, n = f"{variant.get('name') or 'variant'} {n}", n + 1
        self._append(variant | {"name": name})
        self.changed.emit()
        return True

    def add_from_panel(self) -> None:
        if self.from_panel is None:
            return
        try:
            self.add(self.from_panel(chr(ord("A") + self.table.rowCount())))
        except ValueError as exc:
            self.message.emit(f"The current panel cannot be a variant: {exc}")

    def _fill_presets(self) -> None:
        self.preset_menu.clear()
        names = self.presets() if self.presets is not None else []
        if not names:
            self.preset_menu.addAction("No presets saved").setEnabled(False)
        for name in names:
            action = self.preset_menu.addAction(name)
            action.triggered.connect(lambda _checked=False, n=name: self.add_preset(n))

    def add_preset(self, name: str) -> None:
        if self.from_preset is None:
            return
        try:
            self.add(self.from_preset(name))
        except ValueError as exc:
            self.message.emit(f"The preset “{name}” cannot be a variant: {exc}")

    def duplicate_selected(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        try:
            variants = self.read()
        except SuiteError as exc:
            self.message.emit(str(exc))
            return
        for row in rows[:1] or ([len(variants) - 1] if variants else []):
            self.add(copy.deepcopy(variants[row]))

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
        self.changed.emit()


class ChecksEditor(QWidget):
    """The suite's checks, or one case's (the scope box), each a type and its parameters as
    JSON; a row the scorer registry refuses is marked, its tooltip says why."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.lists: dict[str, list[dict[str, Any]]] = {"": []}  # "" the suite's, else a case id
        self.scope = QComboBox()
        self.scope.currentIndexChanged.connect(self._show_scope)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["type", "parameters (JSON)"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemChanged.connect(self._edited)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.type_box = QComboBox()
        self.type_box.addItems(sorted(SCORERS))
        for i, name in enumerate(sorted(SCORERS)):
            self.type_box.setItemData(i, SCORERS[name].summary, Qt.ItemDataRole.ToolTipRole)
        add = QPushButton("Add check")
        add.clicked.connect(lambda: self.add_check({"type": self.type_box.currentText()}))
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected)
        top = QHBoxLayout()
        top.addWidget(QLabel("Checks of"))
        top.addWidget(self.scope, 1)
        top.addWidget(self.type_box)
        top.addWidget(add)
        top.addWidget(remove)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.problem)

    def load(self, suite_checks: list[dict[str, Any]], cases: list[dict[str, Any]]) -> None:
        self.lists = {"": copy.deepcopy(suite_checks)}
        for case in cases:
            self.lists[str(case.get("id"))] = copy.deepcopy(case.get("checks") or [])
        self.set_cases([str(c.get("id")) for c in cases])

    def set_cases(self, ids: list[str]) -> None:
        """The scope box lists the suite and these cases (checks of a removed case go)."""
        current = self.scope.currentData()
        self.lists = {k: v for k, v in self.lists.items() if k == "" or k in ids}
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem("every case (the suite)", "")
        for case_id in ids:
            self.lists.setdefault(case_id, [])
            self.scope.addItem(f"case {case_id}", case_id)
        found = self.scope.findData(current)
        self.scope.setCurrentIndex(max(0, found))
        self.scope.blockSignals(False)
        self._show_scope()

    def checks_of(self, scope: str) -> list[dict[str, Any]]:
        return copy.deepcopy(self.lists.get(scope, []))

    def problems(self) -> list[str]:
        """Every check the registry refuses, with its place."""
        out = []
        for scope, checks in self.lists.items():
            where = "checks" if scope == "" else f"case {scope}: checks"
            for i, check in enumerate(checks):
                problem = check_problem(check)
                if problem:
                    out.append(f"{where}[{i}]{problem}")
        return out

    def add_check(self, check: dict[str, Any]) -> None:
        self.lists.setdefault(self._scope(), []).append(check)
        self._show_scope()
        self.changed.emit()

    def remove_selected(self) -> None:
        checks = self.lists.setdefault(self._scope(), [])
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            if row < len(checks):
                del checks[row]
        self._show_scope()
        self.changed.emit()

    def _scope(self) -> str:
        return str(self.scope.currentData() or "")

    def _show_scope(self) -> None:
        checks = self.lists.get(self._scope(), [])
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for check in checks:
            row = self.table.rowCount()
            self.table.insertRow(row)
            params = {k: v for k, v in check.items() if k != "type"}
            self.table.setItem(row, 0, QTableWidgetItem(str(check.get("type", ""))))
            self.table.setItem(row, 1, QTableWidgetItem(json.dumps(params, ensure_ascii=False)))
        self.table.blockSignals(False)
        self._mark()

    def _edited(self, item: QTableWidgetItem) -> None:
        checks = self.lists.setdefault(self._scope(), [])
        row = item.row()
        if row >= len(checks):
            return
        kind = cell_text(self.table, row, 0).strip()
        text = cell_text(self.table, row, 1)
        try:
            params = parse_json_text(text or "{}", "parameters")
        except SuiteError:
            params = {"__unreadable__": text}  # kept as typed; the mark says it is not JSON
        checks[row] = {"type": kind, **params} if isinstance(params, dict) else {"type": kind}
        self._mark()
        self.changed.emit()

    def _mark(self) -> None:
        checks = self.lists.get(self._scope(), [])
        shown = []
        self.table.blockSignals(True)
        for row, check in enumerate(checks):
            problem = check_problem(check)
            if "__unreadable__" in check:
                problem = ": the parameters are not valid JSON"
            for column in range(2):
                item = self.table.item(row, column)
                if item is not None:
                    item.setForeground(QBrush(_BAD) if problem else QBrush())
                    item.setToolTip(
                        problem.lstrip(".: ") if problem else SCORERS[check["type"]].summary
                    )
            if problem:
                shown.append(f"row {row + 1}{problem}")
        self.table.blockSignals(False)
        self.problem.setText("\n".join(shown))
