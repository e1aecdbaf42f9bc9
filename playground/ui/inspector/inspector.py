"""Inspector: the raw event timeline beside a panel, with filters, follow-tail and a detail pane."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.ui.kit.steady_label import SteadyLabel
from playground.ui.kit.steady_tabs import SteadyTabs

from .column_fit import ColumnFit
from .detail_pane import DetailPane
from .exchange_tabs import EXCHANGE_TITLES, ExchangeTabs
from .timeline_view import TimelineView

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from playground.protocol.sse import SSEItem
    from playground.protocol.stream import StreamDecoder

    from .request_view import ExchangeView
    from .timeline_filter import TimelineFilter
    from .timeline_model import TimelineModel

__all__ = ["Inspector"]

ALL_TYPES = "All types"
# The type filter's width in characters: about "All types", as wide as it was when it fitted its
# items and a run had not filled it yet; a type chosen from its list (response.output_text.delta,
# shown whole there) is cut short in the box, so the filter field beside it keeps its room in a
# 1024-pixel-wide window.
TYPE_COMBO_CHARS = 8
# The Type column grows to its longest name up to this many characters (a longer one, from the
# wire, elides with its whole text in the tooltip), plus the cell's margins and a little air.
TYPE_NAME_CHARS = 48
TYPE_CELL_PADDING = 16
# The timeline model's columns (timeline_model.COLUMNS; a test keeps the two equal). The window
# shows them before that module (and the stream decoder with its JSON library) is loaded.
COLUMNS = ("#", "Time (ms)", "Type", "Size", "Summary", "Findings")
COL_INDEX, COL_TIME, COL_TYPE, COL_SIZE, COL_SUMMARY, COL_FINDINGS = range(6)


def _headers(parent: QObject) -> QStandardItemModel:
    """The timeline's column titles and no rows: the table until its model is built.

    A C++ model: the header asks for its titles a few hundred times before the first frame,
    and a Python model would answer each through PySide (startup).
    """
    model = QStandardItemModel(0, len(COLUMNS), parent)
    model.setHorizontalHeaderLabels(list(COLUMNS))
    return model


class Inspector(ExchangeTabs, QWidget):
    """Timeline table (one row per event and comment) + detail pane; Request / Response tabs."""

    itemSelected = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, defer_model: bool = False) -> None:
        """``defer_model``: the timeline model is built by ``ensure_model()`` or on first use
        (the window's first frame shows the empty table without it; startup)."""
        super().__init__(parent)
        self._decoder: StreamDecoder | None = None
        self._selecting = False
        self._model: TimelineModel | None = None
        self._filter: TimelineFilter | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.tabs = SteadyTabs(self)
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs)

        events = QWidget()
        events_layout = QVBoxLayout(events)
        events_layout.setContentsMargins(2, 2, 2, 2)
        events_layout.setSpacing(2)
        bar = QHBoxLayout()
        self.type_combo = QComboBox(events)
        self.type_combo.addItem(ALL_TYPES)
        # One width whatever types a run brings (its list still opens as wide as the longest):
        # grown to fit them as a run's rows came in, the combo and the filter beside it were
        # laid out again and the whole inspector repainted with the run's last rows.
        self.type_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.type_combo.setMinimumContentsLength(TYPE_COMBO_CHARS)
        self.type_combo.setToolTip("Show one event type")
        self.type_combo.currentIndexChanged.connect(self._filter_changed)
        bar.addWidget(self.type_combo)
        self.search = QLineEdit(events)
        self.search.setPlaceholderText("Filter: text in the raw bytes or type…")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(200)  # debounce: a scan of 1M rows per keystroke is too much
        self._search_timer.timeout.connect(self._filter_changed)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        bar.addWidget(self.search, 1)
        self.findings_only = QCheckBox("Findings", events)
        self.findings_only.setToolTip("Only events with findings")
        self.findings_only.toggled.connect(self._filter_changed)
        bar.addWidget(self.findings_only)
        self.follow = QToolButton(events)
        self.follow.setText("Follow")
        self.follow.setCheckable(True)
        self.follow.setChecked(True)
        self.follow.setToolTip("Keep the newest event in view")
        self.follow.toggled.connect(self._follow_toggled)
        bar.addWidget(self.follow)
        events_layout.addLayout(bar)

        split = QSplitter(Qt.Orientation.Vertical, events)
        self.view = TimelineView(split)
        self.view.decorated_columns = frozenset({COL_FINDINGS})
        self._setup_view()
        self.detail = DetailPane(lambda: self.model, split)
        split.addWidget(self.view)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 400])
        events_layout.addWidget(split, 1)
        # Set with every batch of rows: a label that never lays the window out again.
        self.count_label = SteadyLabel("", events, muted=True)
        events_layout.addWidget(self.count_label)
        self.tabs.addTab(events, "Events")

        # The Request and Response views are built when their tab opens or a run fills them; an
        # empty page stands in until then (the first frame shows the Events tab).
        self._exchange: dict[int, ExchangeView] = {}
        self._exchange_text: dict[int, Callable[[], str]] = {}  # what a tab shows once open
        self._exchange_whole: dict[int, Callable[[], str] | None] = {}  # what its copy copies
        for title in EXCHANGE_TITLES.values():
            self.tabs.addTab(QWidget(), title)
        self.tabs.currentChanged.connect(self._tab_opened)

        self.column_widths: dict[int, int] = {}  # widths to restore (set by the window)
        digits = self.view.fontMetrics().horizontalAdvance("00000.0") + 12
        floors = {COL_INDEX: 36, COL_TIME: digits, COL_SIZE: digits, COL_FINDINGS: 30}
        self.columns = ColumnFit(self.view, COL_SUMMARY, floors)
        if defer_model:
            self.view.setModel(_headers(self))
            self._setup_columns()
        else:
            self.ensure_model()
        self._update_count()

    @property
    def model(self) -> TimelineModel:
        """The timeline's rows (built now if it was deferred)."""
        self.ensure_model()
        assert self._model is not None
        return self._model

    @property
    def filter(self) -> TimelineFilter:
        """The type / text / findings filter over ``model`` (built now if it was deferred)."""
        self.ensure_model()
        assert self._filter is not None
        return self._filter

    @property
    def model_built(self) -> bool:
        return self._model is not None

    def ensure_model(self) -> None:
        """Build the timeline model and filter and put them under the table (once)."""
        if self._model is not None:
            return
        from .timeline_filter import TimelineFilter
        from .timeline_model import TimelineModel

        self._model = model = TimelineModel(self)
        self._filter = TimelineFilter(model, self)
        standin = self.view.model()
        self.view.setModel(self._filter)
        if standin is not None:
            standin.deleteLater()
        self._setup_columns()  # a new model starts the header over
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        model.typesChanged.connect(self._types_changed)
        model.findingsChanged.connect(self._findings_changed)

    def _setup_view(self) -> None:
        view = self.view
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        view.setAlternatingRowColors(True)
        view.setShowGrid(False)
        view.setWordWrap(False)
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        vertical = view.verticalHeader()
        vertical.hide()
        # Fixed row height: a million rows never get measured one by one.
        vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vertical.setDefaultSectionSize(view.fontMetrics().height() + 6)
        # Always there, so the rows that first overflow the view never narrow its viewport: each
        # run starts with an empty timeline, and the scroll bar that appeared as it filled made
        # the columns fit again and the whole table repaint with the rows that filled it.
        view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        bar = view.verticalScrollBar()
        bar.actionTriggered.connect(self._user_scrolled)

    def _setup_columns(self) -> None:
        view = self.view
        header = view.horizontalHeader()
        header.setHighlightSections(False)
        # Fixed starting widths (never ResizeToContents: that measures every row); the user may
        # drag them, and the summary takes what is left.
        widths = {COL_INDEX: 52, COL_TIME: 72, COL_TYPE: 160, COL_SIZE: 68, COL_FINDINGS: 64}
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for col, width in widths.items():
            view.setColumnWidth(col, width)
        # Shown with the findings badge before the summary, so the summary is the elastic last
        # column and a narrow inspector never pushes the badge out of sight (model order kept).
        # (A header keeps its order when the table's model is swapped for one of as many columns.)
        if header.visualIndex(COL_FINDINGS) > header.visualIndex(COL_SUMMARY):
            header.moveSection(header.visualIndex(COL_FINDINGS), header.visualIndex(COL_SUMMARY))
        header.setStretchLastSection(True)
        for col, width in self.column_widths.items():  # remembered from the last start
            if 0 <= col < header.count() and width > 0:
                view.setColumnWidth(col, width)
        self.columns.take_widths()

    # -- the contract --------------------------------------------------------------------------

    def reset(self) -> None:
        self._decoder = None
        if self._model is not None:  # nothing to clear in a model not built yet
            self._model.clear()
        self.detail.clear()
        self._selecting = True
        self.type_combo.blockSignals(True)
        self.type_combo.clear()
        self.type_combo.addItem(ALL_TYPES)
        self.type_combo.blockSignals(False)
        self._selecting = False
        if self._filter is not None and self._filter.active:
            self._filter.clear_filter()
        self._exchange_text.clear()
        self._exchange_whole.clear()
        for view in self._exchange.values():  # views not built yet hold nothing
            view.clear()
            view.full_text = None
        self._update_count()

    def attach(self, decoder: StreamDecoder) -> None:
        """Follow a new run's decoder (clears the timeline; the request view and the text filter
        are kept, the type list starts over)."""
        self.model.clear()
        self.detail.clear()
        self._decoder = decoder
        self._selecting = True
        self.type_combo.blockSignals(True)
        self.type_combo.clear()
        self.type_combo.addItem(ALL_TYPES)
        self.type_combo.blockSignals(False)
        self._selecting = False
        if self.filter.type_filter is not None:
            self.filter.set_filter(None, self.search.text(), self.findings_only.isChecked())
        self._update_count()

    def append(self, items: Sequence[SSEItem]) -> None:
        """A batch of new timeline items (call once per frame); [] still picks up new findings."""
        self.model.append_items(items, self._decoder)
        if items:
            self._update_count()
            if self.follow.isChecked():
                self.view.scrollToBottom()

    def select_item(self, item: int) -> None:
        """Select timeline item ``item`` and scroll to it (clearing a filter that hides it)."""
        if not 0 <= item < self.model.rowCount():
            return
        row = self.filter.map_from_source(item)
        if row is None:
            self._clear_filters()
            row = self.filter.map_from_source(item)
            if row is None:
                return
        self.follow.setChecked(False)  # the user is looking at this one: stop chasing the tail
        self.tabs.setCurrentIndex(0)
        index = self.filter.index(row, 0)
        self._selecting = True
        try:
            self.view.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        finally:
            self._selecting = False

    def highlight_findings(self) -> None:
        """Go to the first event with a finding and show its findings."""
        self.model.update_findings()
        rows = self.model.rows_with_findings()
        if not rows:
            return
        self.select_item(rows[0])
        self.detail.show_tab("Findings")

    # -- queries -------------------------------------------------------------------------------

    def selected_item(self) -> int | None:
        index = self.view.selectionModel().currentIndex()
        if not index.isValid():
            return None
        return self.filter.map_to_source(index.row())

    @property
    def following(self) -> bool:
        return self.follow.isChecked()

    def set_type_filter(self, type_name: str | None) -> None:
        self.type_combo.setCurrentIndex(
            0 if not type_name else max(0, self.type_combo.findText(type_name))
        )

    def set_text_filter(self, text: str) -> None:
        self.search.setText(text)
        self._search_timer.stop()
        self._filter_changed()

    # -- internals -----------------------------------------------------------------------------

    def _current_changed(self, current: object, previous: object) -> None:
        index = self.view.selectionModel().currentIndex()
        if not index.isValid():
            self.detail.clear()
            return
        item = self.filter.map_to_source(index.row())
        self.detail.show_row(item)
        if not self._selecting:
            self.follow.setChecked(False)
            self.itemSelected.emit(item)

    def _filter_changed(self, *_: object) -> None:
        if self._selecting:
            return
        type_name = self.type_combo.currentText()
        selected = self.selected_item()
        self.filter.set_filter(
            None if type_name == ALL_TYPES or not type_name else type_name,
            self.search.text(),
            self.findings_only.isChecked(),
        )
        if selected is not None:
            row = self.filter.map_from_source(selected)
            if row is not None:
                self._selecting = True
                self.view.selectRow(row)
                self._selecting = False
                self.view.scrollTo(self.filter.index(row, 0))
        elif self.follow.isChecked():
            self.view.scrollToBottom()
        self._update_count()

    def _clear_filters(self) -> None:
        self._selecting = True
        self.type_combo.setCurrentIndex(0)
        self.search.setText("")
        self._search_timer.stop()
        self.findings_only.setChecked(False)
        self._selecting = False
        self.filter.clear_filter()
        self._update_count()

    def _types_changed(self) -> None:
        names = self.model.type_names
        new = names[self.type_combo.count() - 1 :]
        for name in new:
            self.type_combo.addItem(name)
        if new:  # the Type column as wide as its widest name (up to a bound: names are data)
            metrics = self.view.fontMetrics()
            widest = max(metrics.horizontalAdvance(name[:TYPE_NAME_CHARS]) for name in new)
            self.columns.fit_content(COL_TYPE, widest + TYPE_CELL_PADDING)

    def _findings_changed(self) -> None:
        self.detail.refresh_findings()
        self._update_count()

    def _follow_toggled(self, on: bool) -> None:
        if on:
            self.view.scrollToBottom()

    def _user_scrolled(self, action: int) -> None:
        # Scrolling up by hand means "let me read": stop following; back at the end, follow again.
        bar = self.view.verticalScrollBar()
        at_end = bar.sliderPosition() >= bar.maximum()
        if self.follow.isChecked() != at_end:
            self.follow.setChecked(at_end)

    def _update_count(self) -> None:
        if self._model is None:
            self.count_label.setText("0 rows")
            return
        total = self.model.rowCount()
        shown = self.filter.rowCount()
        findings = len(self.model.rows_with_findings())
        text = f"{total:,} rows"
        if shown != total:
            text = f"{shown:,} of {total:,} rows"
        if findings:
            text += f" · {findings} with findings"
        omitted = self.model.omitted_findings()
        if omitted:
            text += f" and {omitted:,} more"
        self.count_label.setText(text)
