"""The timeline's columns in a narrow inspector: they shrink (their text elides), never vanish."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QHeaderView, QTableView

__all__ = ["MIN_COLUMN", "MIN_SUMMARY", "ColumnFit"]

MIN_COLUMN = 28  # a shrunk column still shows a character or two and its elision mark
MIN_SUMMARY = 80  # the summary, the elastic column, keeps at least this much


class ColumnFit(QObject):
    """Keeps every column of ``view`` inside its viewport (no horizontal scrolling).

    The widths the user chose (or the defaults) are the wanted ones; when they do not fit
    beside ``MIN_SUMMARY`` of summary, the fixed columns shrink in proportion down to
    ``MIN_COLUMN`` and elide their text; the summary, stretched last, takes what is left.
    At 1280x720 the inspector lost its Size, Findings and Summary columns off its right edge.
    """

    def __init__(self, view: QTableView, summary: int) -> None:
        super().__init__(view)
        self.view = view
        self.summary = summary
        self.wanted: dict[int, int] = {}
        self._fitting = False
        view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideRight)  # "Fi…", not "indin"
        view.viewport().installEventFilter(self)
        view.horizontalHeader().sectionResized.connect(self._resized)

    def take_widths(self) -> None:
        """The header's present widths become the wanted ones (after set-up or a restore)."""
        header = self.view.horizontalHeader()
        self.wanted = {
            col: header.sectionSize(col)
            for col in range(header.count())
            if col != self.summary and not header.isSectionHidden(col)
        }
        self.fit()

    def _resized(self, col: int, _old: int, new: int) -> None:
        if not self._fitting and col != self.summary and col in self.wanted:
            self.wanted[col] = new  # the user dragged it: that is the width wanted now

    def fit(self) -> None:
        header = self.view.horizontalHeader()
        room = self.view.viewport().width()
        if not self.wanted or room <= 0:
            return
        total = sum(self.wanted.values())
        summary = max(MIN_SUMMARY, room // 3)  # the summary is what a reader scans: a third
        scale = min(1.0, max(0.0, room - summary) / total) if total else 1.0
        self._fitting = True
        try:
            for col, width in self.wanted.items():
                size = width if scale >= 1.0 else max(MIN_COLUMN, int(width * scale))
                if header.sectionSize(col) != size:
                    header.resizeSection(col, size)
            if header.sectionResizeMode(self.summary) != QHeaderView.ResizeMode.Stretch:
                header.setSectionResizeMode(self.summary, QHeaderView.ResizeMode.Stretch)
        finally:
            self._fitting = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False
