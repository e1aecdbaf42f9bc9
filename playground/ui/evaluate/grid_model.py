"""The grid's table model: cases down, variants across, each cell's repeats summed up for painting.

It reads the runner's cells (and, while a cell streams, its decoder's text) and tells the view
what changed at most once a frame (``FRAME_MS``): the runner reports every state change, and a
grid of hundreds of streams changes far more often than a screen can show.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from playground.evaluate.runner import Cell
from playground.protocol.stream import StreamDecoder
from playground.ui.kit.account_words import cache_figure_json, money
from playground.ui.runtime.frame_rate import FRAME_MS
from playground.ui.runtime.frames import paint_now

__all__ = ["CELL_ROLE", "CellView", "GridModel", "cost_of_cells"]

CELL_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 1
TEXT_TAIL: Final = 400  # characters of an answer a cell holds (a few lines show; no more needed)
_MANY: Final = 64  # more changed cells than this in a frame: one signal for the whole grid
_Index = QModelIndex | QPersistentModelIndex


@dataclass(slots=True)
class CellView:
    """What one (case, variant) shows: its status, text, checks and figures over its repeats."""

    status: str = "pending"  # pending | running | pass | fail | error | cancelled | mixed
    text: str = ""
    repeats: int = 0
    finished: int = 0
    passed: int = 0
    cancelled: int = 0
    checks: list[tuple[str, bool, Any, str]] = field(default_factory=list)  # first scored repeat
    ttft_ms: float | None = None
    ttft_spread: tuple[float, float] | None = None  # min, max over the repeats
    output_tokens: int | None = None
    duration_ms: float | None = None
    error: str | None = None
    capture: str | None = None
    # What its repeats cost together (None: nothing priced yet, or a price unknown: ``priced``
    # says which), and the last repeat's prompt cache in words.
    cost: float | None = None
    priced: int = 0  # repeats with a known cost
    unpriced: int = 0  # ended repeats whose cost is unknown
    currency: str = "USD"
    cache: str = ""

    @property
    def pass_rate(self) -> float | None:
        scored = self.finished - self.cancelled
        return self.passed / scored if scored else None


def _numbers(cells: Iterable[Cell], name: str) -> list[float]:
    return [float(v) for c in cells if isinstance(v := c.figures.get(name), int | float)]


def cost_of_cells(cells: Iterable[Cell]) -> tuple[float | None, int, int, str]:
    """The cost of the ended, not cancelled ``cells`` added up (the engine's ``cost`` of each,
    evaluate/accounts.py): (total or None when a price is unknown, priced, unpriced, currency)."""
    total, priced, unpriced, currency = 0.0, 0, 0, "USD"
    for cell in cells:
        if not cell.finished or cell.status == "cancelled":
            continue
        cost = cell.cost
        amount = cost.get("total") if isinstance(cost, dict) else None
        if isinstance(amount, int | float):
            total += amount
            priced += 1
            currency = str(cost.get("currency") or currency)  # type: ignore[union-attr]
        else:
            unpriced += 1
    return (total if priced and not unpriced else None), priced, unpriced, currency


def view_of(cells: list[Cell], live: Mapping[tuple[str, str, int], StreamDecoder]) -> CellView:
    """One (case, variant)'s repeats as the grid shows them."""
    view = CellView(repeats=len(cells))
    running = False
    for cell in cells:
        if cell.status == "running":
            running = True
        if cell.finished:
            view.finished += 1
            view.passed += 1 if cell.passed else 0
            view.cancelled += 1 if cell.status == "cancelled" else 0
            if not view.checks and cell.checks:
                view.checks = [(c.type, c.passed, c.value, c.detail) for c in cell.checks]
        view.capture = view.capture or cell.capture
        view.error = view.error or cell.error
    first = cells[0] if cells else None
    if first is not None:
        decoder = live.get(first.key)
        # Streaming: the end (what just arrived); finished: the start, where the answer begins.
        view.text = (
            decoder.state.text[-TEXT_TAIL:] if decoder is not None else first.output[:TEXT_TAIL]
        )
    ttfts = _numbers(cells, "ttft_ms")
    if ttfts:
        view.ttft_ms = statistics.median(ttfts)
        view.ttft_spread = (min(ttfts), max(ttfts)) if len(ttfts) > 1 else None
    tokens = _numbers(cells, "output_tokens")
    view.output_tokens = int(statistics.median(tokens)) if tokens else None
    durations = _numbers(cells, "duration_ms")
    view.duration_ms = statistics.median(durations) if durations else None
    view.cost, view.priced, view.unpriced, view.currency = cost_of_cells(cells)
    ended = [c for c in cells if c.finished and c.cache is not None]
    view.cache = cache_figure_json(ended[-1].cache) if ended else ""
    view.status = _status(view, cells, running)
    return view


def _status(view: CellView, cells: list[Cell], running: bool) -> str:
    if running or (0 < view.finished < view.repeats):
        return "running"
    if view.finished == 0:
        return "pending"
    if view.cancelled == view.finished:
        return "cancelled"
    if view.passed == view.finished:
        return "pass"
    if all(c.status in ("complete", "incomplete") for c in cells if c.status != "cancelled"):
        return "fail" if view.passed == 0 else "mixed"
    return "error" if view.passed == 0 else "mixed"


class GridModel(QAbstractTableModel):
    """Rows are case ids, columns variant names; a cell's data is its ``CellView`` (CELL_ROLE).
    ``framed`` comes once a frame while a run is on (the progress line follows it)."""

    framed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cases: list[str] = []
        self.variants: list[str] = []
        self.cells: dict[tuple[str, str], list[Cell]] = {}
        self.live: Mapping[tuple[str, str, int], StreamDecoder] = {}
        self.frames = 0  # frames that told the view of a change (one per frame at most)
        self._dirty = False
        # Each (case, variant)'s state as the view last heard of it, and its place: a frame
        # tells the view of the cells that changed only, so only those are repainted.
        self._shown: dict[tuple[str, str], tuple[tuple[str, int], ...]] = {}
        self._place: dict[tuple[str, str], tuple[int, int]] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(FRAME_MS)
        self._timer.timeout.connect(self._frame)

    # -- what the grid holds ---------------------------------------------------------------------
    def set_grid(self, cases: list[str], variants: list[str], *, keep: bool = True) -> None:
        """A new shape: with ``keep``, the cells of a (case, variant) still in it stay (a row's
        run keeps the others); without, every cell is pending (another suite)."""
        self.beginResetModel()
        self.cases, self.variants = list(cases), list(variants)
        kept = self.cells.items() if keep else ()
        self.cells = {k: v for k, v in kept if k[0] in cases and k[1] in variants}
        self._place = {
            (case, variant): (r, c)
            for r, case in enumerate(self.cases)
            for c, variant in enumerate(self.variants)
        }
        self._shown = {}
        self.endResetModel()

    def attach(self, cells: list[Cell], live: Mapping[tuple[str, str, int], StreamDecoder]) -> None:
        """A run's cells take the place of the (case, variant)s they cover; the timer runs
        until ``detach``: a streaming cell's text grows with no state change to report."""
        fresh: dict[tuple[str, str], list[Cell]] = {}
        for cell in cells:
            fresh.setdefault((cell.case, cell.variant), []).append(cell)
        self.cells.update(fresh)
        self.live = live
        self.touch()
        self._timer.start()

    def detach(self) -> None:
        self._timer.stop()
        self.live = {}
        self._dirty = True
        self._frame()

    def touch(self) -> None:
        """Something changed: the view hears of it on the next frame."""
        self._dirty = True

    def _frame(self) -> None:
        """Tell the view of the cells whose state or text changed since the last frame, and
        paint them now. The readers are not paused for it, as a panel's one is: with 16 of them,
        below the window's thread in priority, the frame waited for any that the kernel had put
        off the CPU holding its decode lock (frames of 65 ms under load; the text a frame reads
        is a decoder's TextBuffer, safe to read while its reader appends)."""
        if not (self._dirty or self.live):
            return
        self._tell_view()
        paint_now()

    def _tell_view(self) -> None:
        self._dirty = False
        live = self.live
        changed = []
        for key, cells in self.cells.items():
            signature = tuple(
                (c.status, len(d.state.text) if (d := live.get(c.key)) is not None else -1)
                for c in cells
            )
            if self._shown.get(key) != signature:
                self._shown[key] = signature
                place = self._place.get(key)
                if place is not None:
                    changed.append(place)
        if changed:
            self.frames += 1
            if len(changed) > _MANY:
                last = self.index(len(self.cases) - 1, len(self.variants) - 1)
                self.dataChanged.emit(self.index(0, 0), last, [CELL_ROLE])
            else:
                for row, column in changed:
                    index = self.index(row, column)
                    self.dataChanged.emit(index, index, [CELL_ROLE])
        self.framed.emit()

    def cell_view(self, row: int, column: int) -> CellView:
        key = (self.cases[row], self.variants[column])
        return view_of(self.cells.get(key, []), self.live)

    def total_cost(self) -> tuple[float | None, int, int, str]:
        """The experiment's cost: every cell's repeats added up (``cost_of_cells``)."""
        return cost_of_cells(c for cells in self.cells.values() for c in cells)

    def cells_at(self, row: int, column: int) -> list[Cell]:
        return self.cells.get((self.cases[row], self.variants[column]), [])

    def keys_where(
        self,
        *,
        row: int | None = None,
        column: int | None = None,
        failed: bool = False,
        repeat: int = 1,
    ) -> list[tuple[str, str, int]]:
        """The (case, variant, repeat) cells of a row, a column, the failed ones, or all."""
        out = []
        for r, case in enumerate(self.cases):
            for c, variant in enumerate(self.variants):
                if (row is not None and r != row) or (column is not None and c != column):
                    continue
                if failed:
                    out += [x.key for x in self.cells.get((case, variant), []) if not x.passed]
                else:
                    out += [(case, variant, n) for n in range(1, repeat + 1)]
        return out

    # -- QAbstractTableModel ---------------------------------------------------------------------
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.cases)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self.variants)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == CELL_ROLE:
            return self.cell_view(index.row(), index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            view = self.cell_view(index.row(), index.column())
            return f"{view.status} {view.passed}/{view.finished}"
        if role == Qt.ItemDataRole.ToolTipRole:
            return tooltip(self.cell_view(index.row(), index.column()))
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        names = self.variants if orientation == Qt.Orientation.Horizontal else self.cases
        return names[section] if 0 <= section < len(names) else None


def tooltip(view: CellView) -> str:
    """Each check with what it measured, then the cell's error."""
    lines = [
        f"{'pass' if ok else 'FAIL'}  {kind}: {value!r}" + (f"  ({detail})" if detail else "")
        for kind, ok, value, detail in view.checks
    ]
    if view.repeats > 1 and view.pass_rate is not None:
        lines.insert(0, f"pass rate {view.passed}/{view.finished - view.cancelled}")
    if view.cache:
        lines.append(view.cache)
    if view.cost is not None:
        lines.append(f"cost {money(view.cost, view.currency)} over {view.priced} run(s)")
    elif view.unpriced:
        lines.append(f"cost unknown: {view.unpriced} run(s) with no known price")
    if view.status == "cancelled":
        lines.append("cancelled: stopped before it was scored")
    elif view.error:
        lines.append(f"error: {view.error}")
    return "\n".join(lines) or view.status
