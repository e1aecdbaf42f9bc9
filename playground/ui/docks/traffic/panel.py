"""TrafficPanel: the exchanges listed live, filters, and the selected one in its route's views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QItemSelectionModel, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol import safe_json
from playground.protocol.requests import ROUTE_NAMES
from playground.ui.docks.traffic.feed import TrafficEntry, TrafficFeed
from playground.ui.docks.traffic.table import TrafficFilter, TrafficModel
from playground.ui.views.routes import route_views

if TYPE_CHECKING:
    from playground.protocol.state import StreamState
    from playground.ui.runtime.session import StreamSession
    from playground.ui.views.output_view import OutputView

__all__ = ["STATUSES", "TrafficPanel"]

STATUSES = ("streaming", "complete", "incomplete", "failed", "truncated", "cancelled")
EMPTY = (
    "No traffic yet. Point your app's base URL at the address above;\n"
    "each request it makes appears here as it streams."
)
CHOOSE = "Select an exchange in the list to see it here."


class _SteadyArea(QScrollArea):
    """The selected exchange's views, with size hints that never change: a route's views (tool
    calls shown once they come) made the dock 220 px taller on selection, as the window laid
    its docks out again from the new hints; now what does not fit scrolls."""

    def sizeHint(self) -> QSize:
        return QSize(440, 240)

    def minimumSizeHint(self) -> QSize:
        return QSize(160, 120)


class TrafficPanel(QWidget):
    """The list on the left, the selected exchange's output on the right; actions below."""

    selected = Signal(object)  # the TrafficEntry now shown (or None)
    openRequested = Signal(object)  # Open in panel
    saveRequested = Signal(object)
    exportRequested = Signal(object, str)  # entry, format
    compareRequested = Signal(object, object)  # two entries
    itemActivated = Signal(int)  # an output widget asked to show this timeline item

    def __init__(self, feed: TrafficFeed, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.feed = feed
        self.shown: TrafficEntry | None = None
        self._bound: StreamSession | None = None  # the session whose signals the views follow
        self._views: dict[str, dict[str, OutputView]] = {}
        self._pages: dict[str, int] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)

        top = QHBoxLayout()
        self.address = QLabel("proxy: not started")
        self.address.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QPushButton("Copy address")
        self.copy_button.setToolTip("Copy the proxy's base URL: your app's base_url")
        self.copy_button.clicked.connect(self.copy_address)
        self.base_url = ""
        top.addWidget(self.address, 1)
        top.addWidget(self.copy_button)
        layout.addLayout(top)

        filters = QHBoxLayout()
        self.filter_text = QLineEdit()
        self.filter_text.setPlaceholderText("Filter: path, model, status…")
        self.filter_text.setClearButtonEnabled(True)
        self.filter_status = QComboBox()
        self.filter_status.addItem("any status", "")
        for status in STATUSES:
            self.filter_status.addItem(status, status)
        self.filter_route = QComboBox()
        self.filter_route.addItem("any route", "")
        for route in ROUTE_NAMES:
            self.filter_route.addItem(route, route)
        filters.addWidget(self.filter_text, 1)
        filters.addWidget(self.filter_status)
        filters.addWidget(self.filter_route)
        layout.addLayout(filters)

        self.model = TrafficModel(self)
        self.filter = TrafficFilter(self)
        self.filter.setSourceModel(self.model)
        self.table = QTableView()
        self.table.setModel(self.filter)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        for column, width in enumerate((64, 52, 78, 110, 44, 80, 60, 66, 62, 56)):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        # A click on the row already shown brings the inspector back to it (after a tab change).
        self.table.clicked.connect(lambda _i: self.shown and self.selected.emit(self.shown))

        self.output = QStackedWidget()
        self.empty = QLabel(EMPTY)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: gray; padding: 16px;")
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.output.addWidget(self.empty)
        self.output_area = _SteadyArea()
        self.output_area.setWidgetResizable(True)
        self.output_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.output_area.setWidget(self.output)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.table)
        splitter.addWidget(self.output_area)
        splitter.setSizes([560, 440])
        layout.addWidget(splitter, 1)

        actions = QHBoxLayout()
        self.open_button = QPushButton("Open in panel")
        self.open_button.setToolTip("Copy this request into its route's panel, to edit and send")
        self.save_button = QPushButton("Save capture…")
        self.export_button = QToolButton()
        self.export_button.setText("Export as code")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        for fmt, title in (("curl", "curl"), ("python", "Python"), ("typescript", "TypeScript")):
            action = menu.addAction(title)
            action.triggered.connect(lambda _c=False, f=fmt: self._export(f))
        self.export_button.setMenu(menu)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Select two exchanges to compare their text and events")
        self.count = QLabel()
        actions.addWidget(self.open_button)
        actions.addWidget(self.save_button)
        actions.addWidget(self.export_button)
        actions.addWidget(self.compare_button)
        actions.addStretch(1)
        actions.addWidget(self.count)
        layout.addLayout(actions)
        self.open_button.clicked.connect(lambda: self._emit(self.openRequested))
        self.save_button.clicked.connect(lambda: self._emit(self.saveRequested))
        self.compare_button.clicked.connect(self._compare)

        self.filter_text.textChanged.connect(self._refilter)
        self.filter_status.currentIndexChanged.connect(self._refilter)
        self.filter_route.currentIndexChanged.connect(self._refilter)
        feed.added.connect(self._added)
        feed.changed.connect(self._changed)
        feed.removed.connect(self.model.remove)
        self._update_actions()

    # ---- the address ---------------------------------------------------------------------------
    def set_address(self, base_url: str, upstream: str) -> None:
        self.base_url = base_url
        self.address.setText(f"proxy: {base_url} -> {upstream}")

    def copy_address(self) -> None:
        QGuiApplication.clipboard().setText(self.base_url)

    # ---- the list ------------------------------------------------------------------------------
    def _added(self, entry: TrafficEntry) -> None:
        self.model.add(entry)
        self.count.setText(f"{len(self.model.entries)} exchanges")
        if self.shown is None and not self.table.selectionModel().hasSelection():
            self.select(entry)  # nothing chosen yet: follow the newest, live

    def _changed(self, entries: list[TrafficEntry]) -> None:
        self.model.touch(entries)
        if self.filter.text or self.filter.status or self.filter.route:
            self.filter.refilter()  # a status that moved may leave or join the filter
        shown = self.shown
        if shown is not None and shown in entries:
            if shown.session is not None:
                self._bind(shown)  # its session came to exist (its request arrived) after selection
            else:
                self.empty.setText(describe(shown))  # its status or size moved
        if any(entry in self.selected_entries() for entry in entries):
            self._update_actions()  # a selected exchange's session may have come to exist

    def _refilter(self) -> None:
        self.filter.set_filter(
            self.filter_text.text(),
            str(self.filter_status.currentData() or ""),
            str(self.filter_route.currentData() or ""),
        )

    def select(self, entry: TrafficEntry) -> None:
        """Select ``entry``'s row (it shows in the views)."""
        if entry not in self.model.entries:
            return
        source = self.model.index(self.model.entries.index(entry), 0)
        index = self.filter.mapFromSource(source)
        if index.isValid():
            flags = (
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows
            )
            self.table.selectionModel().select(index, flags)
            self.table.setCurrentIndex(index)

    def selected_entries(self) -> list[TrafficEntry]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        out = []
        for row in rows:
            entry = self.filter.index(row, 0).data(Qt.ItemDataRole.UserRole)
            if isinstance(entry, TrafficEntry):
                out.append(entry)
        return out

    def _selection_changed(self, *_args: object) -> None:
        entries = self.selected_entries()
        current = self.table.currentIndex().data(Qt.ItemDataRole.UserRole)
        entry = current if isinstance(current, TrafficEntry) and current in entries else None
        if entry is None and entries:
            entry = entries[0]
        if entry is not self.shown:
            self.show_entry(entry)
        self._update_actions()

    def _update_actions(self) -> None:
        entries = self.selected_entries()
        one = len(entries) >= 1 and entries[0].session is not None
        self.open_button.setEnabled(one)
        self.save_button.setEnabled(one)
        self.export_button.setEnabled(one)
        self.compare_button.setEnabled(
            len(entries) == 2 and all(e.session is not None for e in entries)
        )

    # ---- the selected exchange in its route's views -------------------------------------------
    def show_entry(self, entry: TrafficEntry | None) -> None:
        old = self._bound
        if old is not None:
            old.updated.disconnect(self._updated)
            old.finished.disconnect(self._finished)
        self.shown = self._bound = None
        if entry is None or entry.session is None:
            if entry is not None:
                self.empty.setText(describe(entry))
            else:
                self.empty.setText(CHOOSE if self.model.entries else EMPTY)
            self.output.setCurrentWidget(self.empty)
            self.shown = entry
            self.selected.emit(entry)
            return
        self._bind(entry)

    def _bind(self, entry: TrafficEntry) -> None:
        session = entry.session
        assert session is not None
        if self.shown is entry and self._bound is session:
            return
        self.shown = entry
        self._bound = session
        session.updated.connect(self._updated)
        session.finished.connect(self._finished)
        views = self.views_for(session.route)
        for role, view in views.items():
            view.reset()
            if role in route_views(session.route).on_content:
                view.setVisible(False)  # type: ignore[attr-defined]
        state = session.state
        if state is not None:
            self._draw(state, final=not session.is_running)
        self.selected.emit(entry)

    def views_for(self, route: str) -> dict[str, OutputView]:
        """The route's output widgets in this panel (built the first time it shows one)."""
        views = self._views.get(route)
        if views is None:
            layout = route_views(route)
            splitter = QSplitter(Qt.Orientation.Vertical)
            views = {}
            for role, make in layout.views:
                widget = make()
                views[role] = widget  # type: ignore[assignment]
                splitter.addWidget(widget)
                signal = getattr(widget, "itemActivated", None)
                if signal is not None:  # a click in the answer names the event that carried it
                    signal.connect(self.itemActivated)
            self._views[route] = views
            self._pages[route] = self.output.addWidget(splitter)
        self.output.setCurrentIndex(self._pages[route])
        return views

    def _draw(self, state: StreamState, *, final: bool) -> None:
        session = self._bound
        if session is None:
            return
        if session.run.status is not None and session.run.status >= 400:
            return  # an error body is the inspector's to show, not the answer's
        on_content = route_views(session.route).on_content
        for role, view in self.views_for(session.route).items():
            try:
                view.finish(state) if final else view.refresh(state)
            except Exception:  # a widget bug must not stop the list
                pass
            if role in on_content:  # thinking, tool calls: shown once something came for them
                view.setVisible(view.has_content())  # type: ignore[attr-defined]

    def _updated(self) -> None:
        session = self._bound
        if session is not None and session.state is not None:
            self._draw(session.state, final=False)

    def _finished(self, _status: str) -> None:
        session = self._bound
        if session is not None and session.state is not None:
            self._draw(session.state, final=True)

    def highlight_item(self, item: int) -> None:
        """Show in the shown exchange's widgets which part timeline item ``item`` made."""
        session = self._bound
        if session is None:
            return
        for view in self._views.get(session.route, {}).values():
            try:
                view.highlight_item(item)
            except Exception:  # a highlight is a convenience
                pass

    def shown_text(self) -> str:
        """The selected exchange's text as its answer view shows it (tests, dumps)."""
        if self.shown is None or self.shown.session is None:
            return ""
        views = self._views.get(self.shown.session.route, {})
        answer: Any = views.get("answer")
        pane = answer.pane(0) if answer is not None else None
        return str(pane.text.toPlainText()) if pane is not None else ""

    # ---- actions -------------------------------------------------------------------------------
    def _emit(self, signal: Any) -> None:
        entries = self.selected_entries()
        if entries:
            signal.emit(entries[0])

    def _export(self, fmt: str) -> None:
        entries = self.selected_entries()
        if entries:
            self.exportRequested.emit(entries[0], fmt)

    def _compare(self) -> None:
        entries = self.selected_entries()
        if len(entries) == 2:
            self.compareRequested.emit(entries[1], entries[0])  # older first


def describe(entry: TrafficEntry) -> str:
    """What the detail pane says of an exchange it has no views for."""
    ex = entry.ex
    head = f"{ex.method} {ex.path}"
    if ex.http_status is not None:
        head += f" → HTTP {ex.http_status}, {ex.bytes:,} bytes"
    if ex.route is not None and ex.outcome == "open":
        return f"{head}\n\nWaiting for its request…"
    return (
        f"{head} ({entry.status})\n\nThe playground knows no stream format for this path: the "
        "exchange is listed, not decoded, so there is no answer to show, save or export."
    )


def request_body(entry: TrafficEntry) -> dict[str, Any] | None:
    """The exchange's request body as JSON (what Open in panel puts in the editor)."""
    raw = entry.session.run.body if entry.session is not None else None
    if raw is None:
        raw = entry.ex.facts.capture_body
    try:
        value = safe_json.loads(raw or b"")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
