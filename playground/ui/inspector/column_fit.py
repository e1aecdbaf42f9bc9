"""The timeline's column widths: sized to their content, shrunk in a narrow inspector (their text
elides), never past its edge."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QTableView

__all__ = ["MIN_COLUMN", "MIN_SUMMARY", "ColumnFit"]

MIN_COLUMN = 28  # a shrunk column still shows a character or two and its elision mark
MIN_SUMMARY = 80  # the summary, the elastic column, keeps at least this much


class ColumnFit(QObject):
    """Keeps every column of ``view`` inside its viewport (no horizontal scrolling).

    The widths the user chose (or the defaults) are the wanted ones; when they do not fit
    beside a quarter of the room for the summary, the widest columns give way first (Type, whose
    names elide well, before Size or Time), down to ``MIN_COLUMN``, their text elided; the
    summary, last, takes what is left.
    At 1280x720 the inspector lost its Size, Findings and Summary columns off its right edge.
    """

    def __init__(
        self, view: QTableView, summary: int, floors: dict[int, int] | None = None
    ) -> None:
        """``floors``: the width under which a column would no longer say anything (a time's
        digits, a size's unit); it is not cut below that."""
        super().__init__(view)
        self.view = view
        self.summary = summary
        self.floors = floors or {}
        self.wanted: dict[int, int] = {}
        self.dragged: set[int] = set()  # columns the user sized by hand: their content is not
        # asked about again
        self._fitting = False
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # "Fi…", not "indin"
        # The header follows the viewport's width (the table lays it out over the viewport), and
        # is watched instead: the first viewport() PySide wraps (a bare QWidget) has it load
        # every QtWidgets class to find its type, 65 of them (dialogs, QWizard, QMdiArea...),
        # about 8 ms of the first frame on a 2-core Xeon (startup time).
        header = view.horizontalHeader()
        header.installEventFilter(self)
        header.sectionResized.connect(self._resized)

    def take_widths(self) -> None:
        """The header's present widths become the wanted ones (after set-up or a restore)."""
        header = self.view.horizontalHeader()
        self.wanted = {
            col: header.sectionSize(col)
            for col in range(header.count())
            if col != self.summary and not header.isSectionHidden(col)
        }
        self.dragged.clear()
        self.fit()

    def fit_content(self, col: int, width: int) -> None:
        """Want ``col`` at least ``width`` wide, its content's width: a column is sized to what
        it shows before the summary takes the rest (at 1920 px the Type column elided
        "response.output_text.d…" beside hundreds of empty pixels of summary). It only grows
        (a new run's first types do not narrow it again) and never past a width the user chose;
        when the room is short, ``fit`` still cuts it, widest first."""
        if col == self.summary or col in self.dragged or col not in self.wanted:
            return
        if width > self.wanted[col]:
            self.wanted[col] = width
            self.fit()

    def _resized(self, col: int, _old: int, new: int) -> None:
        if not self._fitting and col != self.summary and col in self.wanted:
            self.wanted[col] = new  # the user dragged it: that is the width wanted now
            self.dragged.add(col)

    def fit(self) -> None:
        header = self.view.horizontalHeader()
        room = header.width()  # the viewport's (see __init__)
        if not self.wanted or room <= 0:
            return
        summary = max(MIN_SUMMARY, room // 4)  # the summary is what a reader scans
        floors = {col: min(w, self.floors.get(col, MIN_COLUMN)) for col, w in self.wanted.items()}
        cap = _cap(self.wanted, floors, room - summary)
        self._fitting = True
        try:
            used = 0
            for col, width in self.wanted.items():
                size = max(floors[col], min(width, cap))
                used += size
                if header.sectionSize(col) != size:
                    header.resizeSection(col, size)
            # The summary takes exactly what is left. (A stretched section stayed at 100 px in a
            # narrow table, past its right edge: it is sized here, on every viewport resize.)
            if header.stretchLastSection():
                header.setStretchLastSection(False)
            rest = max(MIN_COLUMN, room - used)
            if header.sectionSize(self.summary) != rest:
                header.resizeSection(self.summary, rest)
        finally:
            self._fitting = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False


def _cap(wanted: dict[int, int], floors: dict[int, int], room: int) -> int:
    """The largest L with sum(clamp(L, floor, wanted)) <= room: the widest columns are cut to
    L first, none below its floor (when even the floors do not fit, they are what is left)."""

    def total(cap: int) -> int:
        return sum(max(floors[col], min(width, cap)) for col, width in wanted.items())

    low, high = 0, max(wanted.values(), default=0)
    if total(high) <= room:
        return high
    while low < high:  # the largest cap that fits
        mid = (low + high + 1) // 2
        if total(mid) <= room:
            low = mid
        else:
            high = mid - 1
    return low
