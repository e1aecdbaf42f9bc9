"""The Settings price table: each model's prices, edited, saved in the data folder's price file
(runs/prices.py, atomically), imported from and exported to a JSON price file.

Token prices are shown and typed in USD per million tokens (the file keeps USD per token, as
OpenRouter's ``pricing`` does); the image price per image, the audio price per second. An empty
cell is an unknown price, never 0. The models the gateway prices in its /v1/models are listed
too, read-only: those prices are the ones used (protocol/accounting: the gateway's win).
"""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
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

from playground.protocol.accounting.models_meta import ModelInfo
from playground.protocol.accounting.prices import PRICE_FIELDS, ModelPrices, PriceTable

__all__ = ["COLUMNS", "PriceEditor"]

# (field, header, shown per unit: a token price is typed per million tokens)
COLUMNS: tuple[tuple[str, str, float], ...] = (
    ("input", "input\n$/1M", 1e6),
    ("cached_input", "cached input\n$/1M", 1e6),
    ("cache_write_5m", "cache write 5 min\n$/1M", 1e6),
    ("cache_write_1h", "cache write 1 h\n$/1M", 1e6),
    ("output", "output\n$/1M", 1e6),
    ("reasoning", "reasoning\n$/1M", 1e6),
    ("image", "per image\n$", 1.0),
    ("audio_second", "per audio\nsecond $", 1.0),
)
assert tuple(c[0] for c in COLUMNS) == PRICE_FIELDS
SOURCE_FILE = "price file"
SOURCE_GATEWAY = "gateway /v1/models"


def _shown(price: float | None, scale: float) -> str:
    if price is None:
        return ""
    return f"{price * scale:.10g}"


class PriceEditor(QWidget):
    """The table (model, each price, where it comes from) and its buttons."""

    def __init__(
        self,
        table: PriceTable,
        gateway: dict[str, ModelInfo] | None = None,
        base: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.base = base  # the data folder (None: the usual one)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        note = QLabel(
            "Prices per million tokens (per image, per audio second). Empty: unknown, and a run "
            'that uses it shows "cost unknown". Rows from the gateway\'s /v1/models are '
            "read-only and win over the file."
        )
        note.setWordWrap(True)
        layout.addWidget(note)
        self.grid = QTableWidget(0, 2 + len(COLUMNS))
        self.grid.setHorizontalHeaderLabels(["model", *(c[1] for c in COLUMNS), "source"])
        self.grid.verticalHeader().setVisible(False)
        self.grid.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.grid.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.grid.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.grid, 1)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add model")
        self.remove_button = QPushButton("Remove")
        self.import_button = QPushButton("Import JSON…")
        self.export_button = QPushButton("Export JSON…")
        self.import_button.setToolTip("Merge a price file's models into this table")
        self.export_button.setToolTip("Write this table as a price file (playground-prices/1)")
        for button in (self.add_button, self.remove_button, self.import_button, self.export_button):
            row.addWidget(button)
        row.addStretch(1)
        self.error = QLabel()
        self.error.setStyleSheet("color: #cf222e;")
        self.error.setWordWrap(True)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self.add_button.clicked.connect(lambda: self.add_row("", None))
        self.remove_button.clicked.connect(self.remove_selected)
        self.import_button.clicked.connect(self._ask_import)
        self.export_button.clicked.connect(self._ask_export)
        for model, prices in sorted(table.items()):
            self.add_row(model, prices)
        for model, info in sorted((gateway or {}).items()):
            if info.prices is not None:
                self.add_row(model, info.prices, editable=False)

    # ---- rows ---------------------------------------------------------------------------------
    def add_row(self, model: str, prices: ModelPrices | None, *, editable: bool = True) -> int:
        row = self.grid.rowCount()
        self.grid.insertRow(row)
        cells = [model] + [
            _shown(getattr(prices, f, None) if prices is not None else None, scale)
            for f, _h, scale in COLUMNS
        ]
        for column, text in enumerate([*cells, SOURCE_FILE if editable else SOURCE_GATEWAY]):
            item = QTableWidgetItem(text)
            if 0 < column < len(cells):  # the prices right-aligned, as numbers read
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if not editable or column == len(cells):
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            if not editable:
                item.setForeground(QBrush(QColor("gray")))
                item.setToolTip("From the gateway's /v1/models: used as it is, not editable here")
            self.grid.setItem(row, column, item)
        first = self.grid.item(row, 0)
        if editable and not model and first is not None:
            self.grid.setCurrentCell(row, 0)
            self.grid.editItem(first)
        return row

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.grid.selectedIndexes()}, reverse=True)
        for row in rows:
            if self._editable(row):
                self.grid.removeRow(row)

    def _editable(self, row: int) -> bool:
        source = self.grid.item(row, self.grid.columnCount() - 1)
        return source is not None and source.text() == SOURCE_FILE

    def set_price(self, model: str, field: str, text: str) -> None:
        """Type ``text`` in ``model``'s ``field`` cell (a row is added for a new model)."""
        row = next(
            (
                r
                for r in range(self.grid.rowCount())
                if self._editable(r) and (it := self.grid.item(r, 0)) and it.text() == model
            ),
            None,
        )
        if row is None:
            row = self.add_row(model, None)
        column = 1 + PRICE_FIELDS.index(field)
        item = self.grid.item(row, column)
        assert item is not None
        item.setText(text)

    # ---- the table read back ------------------------------------------------------------------
    def table(self) -> PriceTable:
        """The editable rows as a price table; ValueError (one sentence) for a bad cell."""
        out: PriceTable = {}
        for row in range(self.grid.rowCount()):
            if not self._editable(row):
                continue
            name_item = self.grid.item(row, 0)
            model = name_item.text().strip() if name_item is not None else ""
            values: dict[str, float | None] = {}
            for column, (name, header, scale) in enumerate(COLUMNS, 1):
                item = self.grid.item(row, column)
                text = item.text().strip() if item is not None else ""
                values[name] = self._price(text, scale, model, header)
            if not model:
                if any(v is not None for v in values.values()):
                    raise ValueError(f"row {row + 1}: a price without a model name")
                continue
            if model in out:
                raise ValueError(f"{model[:80]} is listed twice")
            out[model] = ModelPrices(**values)  # type: ignore[arg-type]  # (the float fields)
        return out

    @staticmethod
    def _price(text: str, scale: float, model: str, header: str) -> float | None:
        if not text:
            return None
        try:
            value = float(text.replace(",", "").lstrip("$"))
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            words = header.replace("\n", " ")
            raise ValueError(f"{model[:80]}, {words}: {text[:20]!r} is not a price")
        return value / scale

    # ---- saving, import, export ----------------------------------------------------------------
    def save(self) -> bool:
        """Write the table to the data folder's price file; False (and the reason shown) when a
        cell is not a price: nothing is written then."""
        from playground.runs.prices import save_prices
        from playground.ui.runtime.price_table import forget_prices

        try:
            table = self.table()
            save_prices(table, self.base)
        except (ValueError, OSError) as exc:
            self.error.setText(f"The prices were not saved: {exc}")
            return False
        forget_prices()  # the next figure shown reads the file again
        self.error.clear()
        return True

    def import_file(self, path: Path) -> bool:
        """Merge ``path``'s models in (they replace rows of the same name); nothing is saved
        until Settings is accepted."""
        from playground.runs.prices import read_prices

        try:
            incoming = read_prices(path)
        except (ValueError, OSError) as exc:
            self.error.setText(f"{path.name} was not imported: {exc}")
            return False
        for model, prices in incoming.items():
            for row in range(self.grid.rowCount() - 1, -1, -1):
                item = self.grid.item(row, 0)
                if self._editable(row) and item is not None and item.text() == model:
                    self.grid.removeRow(row)
            self.add_row(model, prices)
        self.error.clear()
        return True

    def export_file(self, path: Path) -> bool:
        from playground.runs.prices import export_prices

        try:
            export_prices(self.table(), path)
        except (ValueError, OSError) as exc:
            self.error.setText(f"Not exported: {exc}")
            return False
        self.error.clear()
        return True

    def _ask_import(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Import prices", "", "JSON (*.json)")
        if name:
            self.import_file(Path(name))

    def _ask_export(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Export prices", "prices.json", "JSON (*.json)")
        if name:
            self.export_file(Path(name))
