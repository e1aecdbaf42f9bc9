"""The Traffic list: one row per exchange, newest first, and the filter over it."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)

from playground.protocol.figures import BY_KEY
from playground.protocol.timing_format import format_seconds
from playground.ui.docks.traffic.feed import TrafficEntry
from playground.ui.kit.account_words import cache_figure, cache_tip, cost_figure, cost_tip

if TYPE_CHECKING:
    from playground.protocol.accounting.ledger import Accounted

__all__ = ["COLUMNS", "TrafficFilter", "TrafficModel"]

COLUMNS = (
    "time",
    "method",
    "route",
    "model",
    "HTTP",
    "status",
    "TTFT",
    "duration",
    "size",
    "findings",
    "cache",
    "cost",
)
CACHE_COLUMN = COLUMNS.index("cache")
COST_COLUMN = COLUMNS.index("cost")
CACHED_ROUTES = ("chat", "responses", "messages")  # the media routes have no prompt cache
_Index = QModelIndex | QPersistentModelIndex


def _ms(seconds: float | None) -> str:
    return "" if seconds is None else f"{seconds * 1000:.0f} ms"


def _size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KB"


def account_cells(entry: TrafficEntry, done: Accounted | None) -> tuple[str, str]:
    """The cache and cost columns: the proxy's own verdict on the exchange (its line's
    ``cache`` and ``cost``), against the previous exchange of the same client, route and model."""
    if done is None:
        return "", ""
    cache = cache_figure(done.cache) if entry.ex.route in CACHED_ROUTES else ""
    return cache.removeprefix("cache "), cost_figure(done.cost).removeprefix("cost ")


def cells(entry: TrafficEntry, done: Accounted | None = None) -> tuple[str, ...]:
    """What the row shows, column by column.

    The byte count, HTTP status and end time are read from the proxy's own record (plain
    attributes its thread sets; a read may be a frame ahead of the replayed session).
    """
    ex = entry.ex
    session = entry.session
    run = session.run if session is not None else None
    ttft = run.t_first_token if run is not None else None
    end = ex.t_end if ex.t_end is not None else (run.t_end if run is not None else None)
    stamp = datetime.datetime.fromtimestamp(entry.started).strftime("%H:%M:%S")
    findings = entry.findings
    return (
        stamp,
        ex.method,
        ex.route or ex.path.split("?")[0],
        ex.facts.model or "",
        "" if ex.http_status is None else str(ex.http_status),
        entry.status,
        format_seconds(ttft),  # as the status line and the Timing view write it
        _ms(end),
        _size(ex.bytes),
        f"⚠ {findings}" if findings else "",
        *account_cells(entry, done),
    )


class TrafficModel(QAbstractTableModel):
    """The exchanges, newest first (row 0 is the latest)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[TrafficEntry] = []  # newest first
        self._cells: dict[int, tuple[str, ...]] = {}
        # An ended exchange's cache and cost, as the proxy accounted it (proxy/accounts.py).
        self.accounted: Callable[[int], Accounted | None] = lambda _exchange_id: None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole and COLUMNS[section] == "TTFT":
            return BY_KEY["first_token"].tip
        return None

    def data(self, index: _Index, role: int = 0) -> Any:
        if not index.isValid() or index.row() >= len(self.entries):
            return None
        entry = self.entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.row_cells(entry)[index.column()]
        if role == Qt.ItemDataRole.UserRole:
            return entry
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 2:
            return entry.ex.path
        if role == Qt.ItemDataRole.ToolTipRole and index.column() in (CACHE_COLUMN, COST_COLUMN):
            done = self.accounted(entry.ex.id)
            if done is None:
                return None
            if index.column() == COST_COLUMN:
                return cost_tip(done.cost)
            return cache_tip(done.cache) if entry.ex.route in CACHED_ROUTES else None
        return None

    def row_cells(self, entry: TrafficEntry) -> tuple[str, ...]:
        row = self._cells.get(entry.ex.id)
        if row is None:
            row = self._cells[entry.ex.id] = cells(entry, self.accounted(entry.ex.id))
        return row

    def add(self, entry: TrafficEntry) -> None:
        self.beginInsertRows(QModelIndex(), 0, 0)
        self.entries.insert(0, entry)
        self.endInsertRows()

    def remove(self, entry: TrafficEntry) -> None:
        if entry in self.entries:
            row = self.entries.index(entry)
            self.beginRemoveRows(QModelIndex(), row, row)
            self.entries.pop(row)
            self._cells.pop(entry.ex.id, None)
            self.endRemoveRows()

    def touch(self, entries: list[TrafficEntry]) -> None:
        """Rows whose exchange moved on: their cells are recomputed once for this frame."""
        for entry in entries:
            self._cells.pop(entry.ex.id, None)
        if self.entries:
            # One dataChanged for the whole list: cheaper than finding each row's index.
            last = self.index(len(self.entries) - 1, len(COLUMNS) - 1)
            self.dataChanged.emit(self.index(0, 0), last, [Qt.ItemDataRole.DisplayRole])


class TrafficFilter(QSortFilterProxyModel):
    """Rows whose cells contain the text, with the chosen status and route ("" = any)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.status = ""
        self.route = ""
        self.setDynamicSortFilter(True)

    def set_filter(self, text: str, status: str, route: str) -> None:
        self.beginFilterChange()
        self.text, self.status, self.route = text.strip().lower(), status, route
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def refilter(self) -> None:
        """Rows may have moved in or out of the filter (a status changed)."""
        self.beginFilterChange()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, row: int, parent: _Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, TrafficModel)
        if row >= len(model.entries):
            return False
        values = model.row_cells(model.entries[row])
        if self.status and values[5] != self.status:
            return False
        if self.route and values[2] != self.route:
            return False
        if self.text:
            haystack = " ".join((*values, model.entries[row].ex.path)).lower()
            return self.text in haystack
        return True
