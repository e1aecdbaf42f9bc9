"""The cases table (a row per case, a column per variable) and the current panel's variables.

Import and export go through the engine's readers and writers (``evaluate.cases_io``), and a
case from traffic through its ``case_from_capture``: the table only holds text.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from playground.evaluate.cases_io import (
    case_from_capture,
    cases_from_csv,
    cases_from_jsonl,
    cases_to_csv,
    cases_to_jsonl,
)
from playground.evaluate.model import Case, SuiteError
from playground.protocol import safe_json

__all__ = [
    "CasesEditor",
    "PanelVariables",
    "cell_text",
    "parse_json_text",
    "row_data",
    "set_row_data",
    "write_text_atomically",
]

_FIXED = ("id", "expected", "fault")  # the columns besides the variables
_HIDDEN = Qt.ItemDataRole.UserRole  # the id cell keeps the case's messages and description


def _item(text: str) -> QTableWidgetItem:
    return QTableWidgetItem(text)


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    item = table.item(row, column)
    return item.text() if item is not None else ""


def row_data(table: QTableWidget, row: int) -> Any:
    """What the row's first cell keeps besides its text (the parts no column shows)."""
    item = table.item(row, 0)
    return item.data(_HIDDEN) if item is not None else None


def set_row_data(table: QTableWidget, row: int, value: Any) -> None:
    item = table.item(row, 0)
    if item is not None:
        item.setData(_HIDDEN, value)


def _value_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)


class CasesEditor(QWidget):
    """Edit, add and remove cases; import/export CSV and JSONL; add cases from traffic.

    ``traffic_captures`` gives the capture paths selected in History or Traffic.
    """

    changed = Signal()
    message = Signal(str)

    def __init__(
        self,
        traffic_captures: Callable[[], list[Path]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.traffic_captures = traffic_captures
        self.variables: list[str] = []
        self.table = QTableWidget(0, 0)
        self.table.itemChanged.connect(lambda *_: self.changed.emit())
        buttons = QHBoxLayout()
        for label, slot in (
            ("Add", self.add_empty),
            ("Remove", self.remove_selected),
            ("Import…", self._import),
            ("Export…", self._export),
            ("Add from traffic", self.add_from_traffic),
        ):
            button = QPushButton(label)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)

    # -- the table -------------------------------------------------------------------------------
    def columns(self) -> list[str]:
        return ["id", *self.variables, "expected", "fault"]

    def load(self, cases: list[dict[str, Any]], variables: list[str]) -> None:
        """Show ``cases`` (as the suite file holds them) with a column per variable."""
        found = dict.fromkeys(variables)
        for case in cases:
            found.update(dict.fromkeys(k for k in (case.get("vars") or {}) if k != "expected"))
        self.variables = list(found)
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        self.table.setColumnCount(len(self.columns()))
        self.table.setHorizontalHeaderLabels(self.columns())
        header = self.table.horizontalHeader()
        for column in range(self.table.columnCount()):  # the expected answer gets the room
            mode = QHeaderView.ResizeMode.Stretch if column == len(self.columns()) - 2 else (
                QHeaderView.ResizeMode.Interactive)  # fmt: skip
            header.setSectionResizeMode(column, mode)
        for case in cases:
            self._append(case)
        self.table.blockSignals(False)
        self.changed.emit()

    def _append(self, case: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        values = case.get("vars") or {}
        texts = [
            str(case.get("id", "")),
            *(_value_text(values.get(n)) for n in self.variables),
            _value_text(case.get("expected")),
            _value_text(case.get("fault")),
        ]
        for column, text in enumerate(texts):
            self.table.setItem(row, column, _item(text))
        kept = {k: copy.deepcopy(case[k]) for k in ("messages", "description") if case.get(k)}
        set_row_data(self.table, row, kept)

    def read(self) -> list[dict[str, Any]]:
        """The cases as the suite file holds them (without checks: the checks editor has them)."""
        out = []
        names = self.columns()
        for row in range(self.table.rowCount()):
            texts = {n: cell_text(self.table, row, c) for c, n in enumerate(names)}
            case: dict[str, Any] = {
                "id": texts["id"].strip(),
                "vars": {n: texts[n] for n in self.variables if texts[n]},
            }
            if texts["expected"]:
                case["expected"] = texts["expected"]
            if texts["fault"].strip():
                case["fault"] = texts["fault"].strip()
            case.update(row_data(self.table, row) or {})
            out.append(case)
        return out

    def ids(self) -> list[str]:
        return [c["id"] for c in self.read()]

    def add_empty(self) -> None:
        taken = set(self.ids())
        n = len(taken) + 1
        while f"case{n}" in taken:
            n += 1
        self._append({"id": f"case{n}"})
        self.changed.emit()

    def add_cases(self, cases: list[Case]) -> None:
        new = [c.as_json() for c in cases]
        self.load(self.read() + new, self.variables)

    def remove_selected(self) -> None:
        for row in sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True):
            self.table.removeRow(row)
        self.changed.emit()

    # -- files and traffic -----------------------------------------------------------------------
    def import_text(self, text: str, kind: str) -> int:
        """Add the cases of a CSV or JSONL text; SuiteError says what is wrong and where."""
        cases = cases_from_jsonl(text) if kind == "jsonl" else cases_from_csv(text)
        self.add_cases(cases)
        return len(cases)

    def export_text(self, kind: str) -> str:
        cases = [
            Case(
                c["id"],
                dict(c.get("vars", {})),
                c.get("expected"),
                [],
                c.get("fault"),
                list(c.get("messages", [])),
            )
            for c in self.read()
        ]
        return cases_to_jsonl(cases) if kind == "jsonl" else cases_to_csv(cases)

    def _import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import cases", "", "Cases (*.csv *.jsonl)")
        if not path:
            return
        try:
            text = Path(path).read_text(encoding="utf-8")
            count = self.import_text(text, "jsonl" if path.endswith(".jsonl") else "csv")
        except (OSError, UnicodeDecodeError, SuiteError) as exc:
            self.message.emit(f"Cannot import {Path(path).name}: {exc}")
            return
        self.message.emit(f"Imported {count} cases from {Path(path).name}.")

    def _export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export cases", "cases.csv", "CSV (*.csv);;JSON Lines (*.jsonl)"
        )
        if not path:
            return
        try:
            write_text_atomically(
                Path(path), self.export_text("jsonl" if path.endswith(".jsonl") else "csv")
            )
        except OSError as exc:
            self.message.emit(f"Cannot write {Path(path).name}: {exc.strerror or exc}")
            return
        self.message.emit(f"Exported the cases to {Path(path).name}.")

    def add_from_traffic(self) -> int:
        """A case per capture selected in History or Traffic (its thread, input, answer)."""
        paths = self.traffic_captures() if self.traffic_captures is not None else []
        if not paths:
            self.message.emit("Select runs in History or exchanges in Traffic first.")
            return 0
        taken, cases = set(self.ids()), []
        for path in paths:
            n = len(taken) + 1
            while f"traffic{n}" in taken:
                n += 1
            try:
                cases.append(case_from_capture(Path(path), f"traffic{n}"))
            except SuiteError as exc:
                self.message.emit(str(exc))
                continue
            taken.add(f"traffic{n}")
        if cases and "input" not in self.variables:
            self.variables.append("input")
        self.add_cases(cases)
        return len(cases)


class PanelVariables(QWidget):
    """The variables the current panel's request uses, with a value each; "Add as a case" turns
    them into a row of the cases table."""

    addCase = Signal(dict)

    def __init__(
        self,
        read_panel: Callable[[], Mapping[str, str] | list[str]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``read_panel``: the panel's variables, each with the value its Variables group holds
        (or names alone)."""
        super().__init__(parent)
        self.read_panel = read_panel
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["variable", "value"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.note = QLabel(
            "Variables ({{name}}) in the current panel's system prompt, thread, "
            "tools and message box."
        )
        self.note.setWordWrap(True)
        read = QPushButton("Read the current panel")
        read.clicked.connect(self.refresh)
        add = QPushButton("Add as a case")
        add.clicked.connect(lambda: self.addCase.emit(self.values()))
        buttons = QHBoxLayout()
        buttons.addWidget(read)
        buttons.addWidget(add)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)

    def refresh(self) -> None:
        found = self.read_panel() if self.read_panel is not None else []
        names = list(found)
        held = found if isinstance(found, Mapping) else {}
        old = self.values()
        self.table.setRowCount(0)
        for name in names:
            row = self.table.rowCount()
            self.table.insertRow(row)
            item = _item(name)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(row, 0, item)
            self.table.setItem(row, 1, _item(held.get(name) or old.get(name, "")))

    def values(self) -> dict[str, str]:
        out = {}
        for row in range(self.table.rowCount()):
            name, value = self.table.item(row, 0), self.table.item(row, 1)
            if name is not None:
                out[name.text()] = value.text() if value is not None else ""
        return out


def write_text_atomically(target: Path, text: str) -> None:
    """``text`` at ``target`` through a temporary file beside it, renamed over it."""
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".cases-", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def parse_json_text(text: str, where: str) -> Any:
    """A cell's JSON text read with the one safe reader; SuiteError names the place."""
    try:
        return safe_json.loads(text)
    except ValueError as exc:
        raise SuiteError(f"{where}: not valid JSON ({exc})") from None
