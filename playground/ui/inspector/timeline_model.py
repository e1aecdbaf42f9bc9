"""TimelineModel: the inspector's table over compact, append-only per-event columns."""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Final

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFontDatabase, QIcon
from PySide6.QtWidgets import QApplication, QStyle

from playground.protocol.sse import SSEItem
from playground.protocol.state import Finding
from playground.protocol.stream import StreamDecoder
from playground.protocol.summary import summarize
from playground.protocol.timeline import ItemTypes, item_payload, rebuild_item
from playground.protocol.timeline_items import TimelineItems

__all__ = ["COLUMNS", "ITEM_ROLE", "SEVERITY_RANK", "TimelineModel"]

COLUMNS: Final = ("#", "Time (ms)", "Type", "Size", "Summary", "Findings")
COL_INDEX, COL_TIME, COL_TYPE, COL_SIZE, COL_SUMMARY, COL_FINDINGS = range(6)
ITEM_ROLE: Final = int(Qt.ItemDataRole.UserRole) + 1  # the timeline item index of a row
SEVERITY_RANK: Final = {"info": 1, "warning": 2, "error": 3}
_SUMMARY_CACHE: Final = 512
# Roles as plain ints: comparing against ``Qt.ItemDataRole.X`` looks the enum up on every call.
_DISPLAY: Final = int(Qt.ItemDataRole.DisplayRole)
_FOREGROUND: Final = int(Qt.ItemDataRole.ForegroundRole)
_ALIGNMENT: Final = int(Qt.ItemDataRole.TextAlignmentRole)
_FONT: Final = int(Qt.ItemDataRole.FontRole)
_DECORATION: Final = int(Qt.ItemDataRole.DecorationRole)
_TOOLTIP: Final = int(Qt.ItemDataRole.ToolTipRole)
_RIGHT: Final = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_NUMERIC: Final = frozenset({COL_INDEX, COL_TIME, COL_SIZE})
_DIM: Final = QColor(128, 128, 128)
_BAD: Final = QColor(192, 57, 43)

Index = QModelIndex | QPersistentModelIndex


def _size_text(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f} MB"
    if n >= 10_000:
        return f"{n / 1000:.1f} kB"
    return f"{n} B"


class TimelineModel(QAbstractTableModel):
    """One row per timeline item (events, comments, unterminated tails), in arrival order.

    Memory (the benchmark's goal: <= 250 bytes per event over its raw bytes at 1,000,000 events):
    a row costs a few array slots (time, size, type id, worst finding) — no per-row Python
    objects. The items themselves stay in the decoder's ``items`` list, referenced, never copied;
    types are interned as small ids (protocol/timeline.py finds them); summaries are made lazily
    from the item in ``data()`` with a small LRU cache.
    """

    typesChanged = Signal()  # a new event type appeared (for the type filter)
    findingsChanged = Signal()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._icons: dict[int, QIcon] = {}
        self.clear()

    # -- the contract --------------------------------------------------------------------------

    def clear(self) -> None:
        self.beginResetModel()
        self._decoder: StreamDecoder | None = None
        # Either the decoder's own item list (shared, never copied) or, with no decoder, only each
        # item's raw bytes (referenced, not copied): items are rebuilt from them on demand, so the
        # parsed ``data`` strings are not kept alive twice over (the per-event memory budget).
        self._shared: Sequence[SSEItem] | None = None
        self._raws: list[bytes | SSEItem] | None = None
        self._rebuilt: OrderedDict[int, SSEItem] = OrderedDict()
        # With only raw bytes kept (no shared decoder items), what else a row shows: the stream
        # offset of each item's first byte, t_last in seconds since the request, and the size.
        # Rows over the decoder's items read these from the items (24 bytes a row saved).
        self._starts = array("q")
        self._times = array("d")
        self._sizes = array("q")
        self._types = array("H")  # ids into _type_names
        self._worst = array("b")  # worst finding severity rank (0 = none), kept per row
        # Type names and how each item's is found: protocol/timeline.py (Qt never parses).
        self._typer = ItemTypes(self._payload_of_item, self.typesChanged.emit)
        self._type_names = self._typer.names  # the same list, read per painted cell
        self._findings: dict[int, list[Finding]] = {}
        self._findings_seen = 0
        # Worst rank of findings that named a row before it was added: a live run is decoded on
        # its reader thread, ahead of the rows the timeline has been handed. Taken as they come.
        self._rank_early: dict[int, int] = {}
        self._summaries: OrderedDict[int, str] = OrderedDict()
        self.endResetModel()

    def append_items(self, items: Sequence[SSEItem], decoder: StreamDecoder | None) -> None:
        """Add a batch of rows with one beginInsertRows; then pick up any new findings."""
        first = len(self._types)
        if items and items[0].index != first:
            items = self._align(items, decoder, first)
        if items:
            self._bind(items, decoder, first)
            last = first + len(items) - 1
            self.beginInsertRows(QModelIndex(), first, last)
            if self._shared is None:
                # Only raw bytes are kept: the columns hold what the items would have told.
                self._add_columns(items)
            self._types.extend(self._typer.ids_of(items))
            self._worst.frombytes(bytes(len(items)))
            if self._rank_early:
                self._take_early_ranks(first, last)
            self.endInsertRows()
        self.update_findings()

    def _add_columns(self, items: Sequence[SSEItem]) -> None:
        self._starts.extend([item.start for item in items])
        self._times.extend([item.t_last for item in items])
        self._sizes.extend([item.end - item.start for item in items])

    def _take_early_ranks(self, first: int, last: int) -> None:
        early = self._rank_early
        for row in [r for r in early if first <= r <= last]:
            self._worst[row] = early.pop(row)

    def update_findings(self) -> None:
        """Index findings that arrived since the last call (they may name earlier rows)."""
        decoder = self._decoder
        if decoder is None:
            return
        findings = decoder.state.findings
        if len(findings) <= self._findings_seen:
            return
        rows: list[int] = []
        count = len(self._worst)
        for finding in findings[self._findings_seen :]:
            row = finding.item
            if row is None:
                continue
            self._findings.setdefault(row, []).append(finding)
            rank = SEVERITY_RANK.get(finding.severity, 1)
            if 0 <= row < count:
                if rank > self._worst[row]:
                    self._worst[row] = rank
                rows.append(row)
            elif row >= count and rank > self._rank_early.get(row, 0):
                self._rank_early[row] = rank
        self._findings_seen = len(findings)
        if rows:
            top = self.index(min(rows), COL_FINDINGS)
            bottom = self.index(max(rows), COL_FINDINGS)
            self.dataChanged.emit(top, bottom)
            self.findingsChanged.emit()

    # -- queries -------------------------------------------------------------------------------

    @property
    def decoder(self) -> StreamDecoder | None:
        return self._decoder

    def item(self, row: int) -> SSEItem:
        """The timeline item of ``row`` (rebuilt from its raw bytes when they are all we keep)."""
        if self._shared is not None:
            return self._shared[row]
        assert self._raws is not None
        kept = self._raws[row]
        if not isinstance(kept, bytes):
            return kept
        cache = self._rebuilt
        item = cache.get(row)
        if item is not None:
            cache.move_to_end(row)
            return item
        item = self._rebuild(row, kept)
        cache[row] = item
        if len(cache) > _SUMMARY_CACHE:
            cache.popitem(last=False)
        return item

    def raw_of(self, row: int) -> bytes:
        if self._shared is not None:
            return self._shared[row].raw
        assert self._raws is not None
        kept = self._raws[row]
        return kept if isinstance(kept, bytes) else kept.raw

    def type_name(self, row: int) -> str:
        return self._type_names[self._types[row]]

    def type_id(self, row: int) -> int:
        return self._types[row]

    @property
    def type_names(self) -> list[str]:
        return list(self._typer.names)

    def type_id_of(self, name: str) -> int | None:
        return self._typer.id_of_name(name)

    @property
    def types_column(self) -> array:  # type: ignore[type-arg]
        return self._types

    @property
    def worst_column(self) -> array:  # type: ignore[type-arg]
        return self._worst

    @property
    def shares_decoder_items(self) -> bool:
        return self._shared is not None

    def time_of(self, row: int) -> float:
        shared = self._shared
        if shared is not None:
            return shared[row].t_last
        return self._times[row]

    def size_of(self, row: int) -> int:
        shared = self._shared
        if shared is not None:
            item = shared[row]
            return item.end - item.start
        return self._sizes[row]

    def worst_finding(self, row: int) -> int:
        if not 0 <= row < len(self._worst):
            return 0
        decoder = self._decoder
        counted = decoder.omitted_rank(row) if decoder is not None else 0
        return max(self._worst[row], counted)

    def omitted_findings(self) -> int:
        """How many findings the run counted without keeping (past the first of their code)."""
        decoder = self._decoder
        return sum(decoder.state.findings_omitted.values()) if decoder is not None else 0

    def findings_of(self, row: int) -> list[Finding]:
        return list(self._findings.get(row, ()))

    def rows_with_findings(self) -> list[int]:
        return sorted(r for r in self._findings if 0 <= r < len(self._worst))

    def payload(self, row: int) -> object | None:
        """The parsed JSON of the row's data (the decoder's cache when there is one)."""
        if self._decoder is not None:
            return self._decoder.payload(row)
        return item_payload(self.item(row))

    def summary(self, row: int) -> str:
        cache = self._summaries
        text = cache.get(row)
        if text is not None:
            cache.move_to_end(row)
            return text
        item = self.item(row)
        try:
            text = summarize(item, self.payload(row))
        except Exception as exc:  # a summary bug must not break the table
            text = f"(no summary: {type(exc).__name__})"
        cache[row] = text
        if len(cache) > _SUMMARY_CACHE:
            cache.popitem(last=False)
        return text

    # -- Qt model ------------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._types)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal:
            if role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
                return COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole and section == COL_TIME:
                return "When the event was complete, in ms since the request was sent"
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        return self.cell(index.row(), index.column(), role)

    def cell(self, row: int, col: int, role: int) -> Any:
        """``data()`` by plain numbers (the filter calls it without making a source index).

        A paint asks for about seven roles of every visible cell (measured: a thousand calls per
        frame at full speed), so roles are plain ints and the usual answers come first.
        """
        if row >= len(self._types):
            return None
        if role == _DISPLAY:
            if col == COL_INDEX:
                return str(row)
            if col == COL_TIME:
                return f"{self.time_of(row) * 1000:.1f}"
            if col == COL_TYPE:
                return self._type_names[self._types[row]]
            if col == COL_SIZE:
                return _size_text(self.size_of(row))
            if col == COL_SUMMARY:
                return self.summary(row)
            if col == COL_FINDINGS:
                found = self._findings.get(row)
                return str(len(found)) if found else ""
            return None
        if role == _FOREGROUND:
            kind = self._type_names[self._types[row]]
            if kind == "comment":
                return _DIM  # comment lines are shown, dimmed (docs/protocol.md §0)
            if kind in ("unterminated", "error"):
                return _BAD
            return None
        if role == _ALIGNMENT:
            return _RIGHT if col in _NUMERIC else None
        if role == _FONT:
            return self._mono if col in _NUMERIC else None
        if role == _DECORATION:
            if col != COL_FINDINGS:
                return None
            # A row whose findings were only counted still shows its badge (the decoder marks it).
            rank = self.worst_finding(row)
            return self._icon(rank) if rank else None
        if role == ITEM_ROLE:
            return row
        if role == _TOOLTIP:
            if col == COL_FINDINGS:
                found = self._findings.get(row)
                if found:
                    return "\n".join(f"{f.severity}: {f.code} — {f.message}" for f in found)
            if col == COL_SUMMARY:
                return self.summary(row)
            if col == COL_TYPE:
                return self._type_names[self._types[row]]
            return None
        return None

    # -- internals -----------------------------------------------------------------------------

    def _bind(self, items: Sequence[SSEItem], decoder: StreamDecoder | None, first: int) -> None:
        """Share the decoder's item list when the batch is its tail; else keep raw bytes only."""
        if decoder is not None and decoder is not self._decoder and first == 0:
            self._decoder = decoder
        if first == 0 and self._raws is None and self._decoder is not None:
            self._shared = self._decoder.items
        shared = self._shared
        if shared is not None:
            if len(shared) >= first + len(items) and self._is_decoders(shared, items[0]):
                return
            # The batch is not the decoder's: keep raw bytes (and the columns) from here on.
            self._raws = [it.raw or it for it in shared[:first]]
            self._add_columns(shared[:first])
            self._shared = None
        if self._raws is None:
            self._raws = []
        # An item with no raw bytes (a raw audio chunk) is kept as it is.
        self._raws.extend([it.raw or it for it in items])

    @staticmethod
    def _is_decoders(shared: Sequence[SSEItem], item: SSEItem) -> bool:
        """Whether ``item`` is the decoder's own (one it folded into a run is a copy)."""
        if isinstance(shared, TimelineItems):
            return shared.holds(item)
        return shared[item.index] is item

    def _rebuild(self, row: int, raw: bytes) -> SSEItem:
        start = self._starts[row]
        return rebuild_item(row, raw, start, start + self._sizes[row], self._times[row])

    def _align(
        self, items: Sequence[SSEItem], decoder: StreamDecoder | None, first: int
    ) -> Sequence[SSEItem]:
        """Keep row == item index: drop rows already shown, fill a gap from the decoder."""
        items = [item for item in items if item.index >= first]
        if items and items[0].index > first:
            source = decoder.items if decoder is not None else None
            if source is not None and len(source) > items[-1].index:
                items = source[first : items[-1].index + 1]
        return items

    def _payload_of_item(self, item: SSEItem) -> object | None:
        decoder = self._decoder
        return decoder.payload(item.index) if decoder is not None else item_payload(item)

    def _icon(self, rank: int) -> QIcon:
        icon = self._icons.get(rank)
        if icon is None:
            style = QApplication.style()
            pixmap = {
                1: QStyle.StandardPixmap.SP_MessageBoxInformation,
                2: QStyle.StandardPixmap.SP_MessageBoxWarning,
                3: QStyle.StandardPixmap.SP_MessageBoxCritical,
            }[rank]
            icon = self._icons[rank] = style.standardIcon(pixmap)
        return icon
