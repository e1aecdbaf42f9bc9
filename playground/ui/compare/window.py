"""Compare: one prompt to several routes, models or providers at once, side by side, with diffs.

Each column owns its own StreamSession (the same pipeline as a panel), so a column is a run like
any other: its timing comes from ``compute_timing`` and its text from the decoder's state. The
diffs below the columns compare two chosen columns: the text word by word (difflib), the tool
calls, the usage as reported and counted, and the sequence of event types.
"""

from __future__ import annotations

import contextlib
import html
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.conversation.bodies import with_earlier
from playground.protocol.conversation.model import Conversation
from playground.protocol.requests import RequestParams, build_body
from playground.protocol.routes import CONVERSATIONAL
from playground.protocol.state import StreamState
from playground.protocol.timing import Timing, compute_timing
from playground.ui.compare.diff import (
    event_sequence,
    figures_html,
    run_length,
    sequence_diff_html,
    text_diff_html,
    tool_calls_of,
    usage_html,
)
from playground.ui.views.json_stream import pretty
from playground.ui.views.live_text import LiveText
from playground.ui.views.lost_text import GapFeed
from playground.ui.views.timing_chart import ArrivalChart

__all__ = [
    "COMPARE_ROUTES",
    "ColumnConfig",
    "CompareColumn",
    "CompareWindow",
]

COMPARE_ROUTES = CONVERSATIONAL  # the text routes people compare


@dataclass
class ColumnConfig:
    """What one column sends: a route at a provider (the simulator when ``provider_id`` is it)."""

    route: str = "chat"
    provider_id: str = "simulator"
    model: str = ""
    base_url: str = ""  # overrides the provider's (the simulator's, a custom gateway's)


class CompareColumn(QFrame):
    """A route/provider/model picker over a live answer, its status and a small arrival chart."""

    changed = Signal()
    removeRequested = Signal()

    def __init__(self, config: ColumnConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from playground.transport.providers import PROVIDERS
        from playground.ui.runtime.session import StreamSession

        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.config = config
        self.session = StreamSession(config.route, self)
        self.timing: Timing | None = None
        self._shown = 0

        self.route_combo = QComboBox()
        self.route_combo.addItems(list(COMPARE_ROUTES))
        self.route_combo.setCurrentText(config.route)
        self.provider_combo = QComboBox()
        for provider in PROVIDERS:
            self.provider_combo.addItem(provider.name, provider.id)
        index = self.provider_combo.findData(config.provider_id)
        self.provider_combo.setCurrentIndex(max(index, 0))
        self.model_edit = QLineEdit(config.model)
        self.model_edit.setPlaceholderText("model (default: the provider's)")
        self.base_edit = QLineEdit(config.base_url)
        self.base_edit.setPlaceholderText("base URL (optional)")
        remove = QToolButton()
        remove.setText("✕")
        remove.setToolTip("Remove this column")
        remove.clicked.connect(self.removeRequested)
        form = QFormLayout()
        head = QHBoxLayout()
        head.addWidget(self.route_combo, 1)
        head.addWidget(remove)
        form.addRow("Route", head)
        form.addRow("Provider", self.provider_combo)
        form.addRow("Model", self.model_edit)
        form.addRow("Base URL", self.base_edit)

        self.status = QLabel("idle")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.figures = QLabel("")
        self.figures.setTextFormat(Qt.TextFormat.RichText)
        self.figures.setWordWrap(True)
        # The panels' renderer: Markdown laid out live, code highlighted, lost text marked.
        self.answer = LiveText(self, placeholder="The answer streams here.", markdown=True)
        self._gaps = GapFeed()
        self.chart = ArrivalChart()
        self.chart.setMinimumHeight(90)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.answer, 1)
        layout.addWidget(self.figures)
        layout.addWidget(self.chart)

        self.session.started.connect(self._on_started)
        self.session.updated.connect(self._on_updated)
        self.session.finished.connect(self._on_finished)
        for widget in (self.route_combo, self.provider_combo):
            widget.currentIndexChanged.connect(self._sync)
        for edit in (self.model_edit, self.base_edit):
            edit.editingFinished.connect(self._sync)

    def _sync(self) -> None:
        self.config = ColumnConfig(
            self.route_combo.currentText(),
            str(self.provider_combo.currentData()),
            self.model_edit.text().strip(),
            self.base_edit.text().strip(),
        )
        self.session.route = self.config.route

    @property
    def title(self) -> str:
        c = self.config
        return f"{c.route} · {self.provider_combo.currentText()}" + (
            f" · {c.model}" if c.model else ""
        )

    @property
    def state(self) -> StreamState | None:
        return self.session.state

    @property
    def text(self) -> str:
        state = self.state
        return state.text if state is not None else ""

    def _on_started(self) -> None:
        self._shown = 0
        self._gaps.reset()
        self.answer.reset()
        self.timing = None
        self.chart.set_timing(None)
        self.figures.setText("")
        self.status.setText("<i>streaming…</i>")

    def _on_updated(self) -> None:
        state = self.state
        if state is None:
            return
        choice = state.choices.get(0)
        if choice is None:
            return
        self._gaps.feed(self.answer, state.findings, choice.text, (choice.reasoning,))
        # Only the new suffix, like the panels' widgets (never the whole document per token).
        if self.answer.sync(choice.text):
            self._shown = len(choice.text)

    def _on_finished(self, status: str) -> None:
        self._on_updated()
        state = self.state
        if state is not None and state.done_text is not None and not self._shown:
            self.answer.show_text(state.text)
        else:
            self.answer.render_markdown()
        decoder = self.session.decoder
        run = self.session.run
        if decoder is not None:
            self.timing = compute_timing(decoder, run.t_headers, run.t_first_byte, t_end=run.t_end)
            self.chart.set_timing(self.timing)
            self.figures.setText(figures_html(self.timing))
        error = state.error.message if state is not None and state.error is not None else ""
        http = f" · HTTP {run.status}" if run.status is not None else ""
        colour = (
            "#16a34a" if status == "complete" else "#dc2626" if status == "failed" else "#d97706"
        )
        self.status.setText(
            f'<b style="color:{colour}">{html.escape(status)}</b>{http}'
            + (f" · {html.escape(error)}" if error else "")
        )
        self.changed.emit()


# ---- the window ------------------------------------------------------------------------------
SpecMaker = Callable[[ColumnConfig, dict[str, Any]], Any]


class CompareWindow(QMainWindow):
    """Columns of runs side by side and the diffs of two of them.

    ``spec_maker(config, body) -> RequestSpec`` builds each column's request (the main window
    passes one that knows the simulator's URL and the keys); without it the columns send to
    their base URL with the provider's auth from the keyring or env.
    """

    allFinished = Signal()

    def __init__(
        self,
        configs: Sequence[ColumnConfig] | None = None,
        *,
        spec_maker: SpecMaker | None = None,
        default_base_url: str = "",
        sim_headers: dict[str, str] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        # The simulator's own headers (X-Sim-Pace...), sent to built-in simulator columns only.
        self.sim_headers = dict(sim_headers or {})
        self._running: set[int] = set()
        self.setWindowTitle("Compare — Playground")
        self.resize(1400, 900)
        self.spec_maker = spec_maker
        self.default_base_url = default_base_url
        self.columns: list[CompareColumn] = []
        self.conversation: Conversation | None = None  # turns before the prompt (Send to)

        self.prompt = QPlainTextEdit()
        self.prompt.setPlaceholderText("One prompt, sent to every column at once (Ctrl+Enter).")
        self.prompt.setMaximumHeight(72)
        self.system = QLineEdit()
        self.system.setPlaceholderText("system prompt (optional)")
        self.max_tokens = QLineEdit()
        self.max_tokens.setPlaceholderText("max tokens")
        self.max_tokens.setMaximumWidth(110)
        self.send_button = QPushButton("Send to all")
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self.send_all)
        self.stop_button = QPushButton("Stop")
        self.stop_button.clicked.connect(self.stop_all)
        self.add_button = QPushButton("Add column")
        self.add_button.clicked.connect(lambda: self.add_column(self._next_config()))
        self.error = QLabel("")
        self.error.setStyleSheet("color:#dc2626")
        self.error.setWordWrap(True)
        self.error.hide()
        from PySide6.QtGui import QKeySequence, QShortcut

        QShortcut(QKeySequence("Ctrl+Return"), self, self.send_all)
        top = QHBoxLayout()
        top.addWidget(self.system, 2)
        top.addWidget(self.max_tokens)
        top.addWidget(self.add_button)
        top.addWidget(self.stop_button)
        top.addWidget(self.send_button)

        self.columns_box = QWidget()
        self.columns_layout = QHBoxLayout(self.columns_box)
        self.columns_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.columns_box)

        self.left_combo = QComboBox()
        self.right_combo = QComboBox()
        self.left_combo.currentIndexChanged.connect(self.refresh_diffs)
        self.right_combo.currentIndexChanged.connect(self.refresh_diffs)
        self.diff_tabs = QTabWidget()
        self.text_diff = QTextBrowser()
        self.tools_diff = QTextBrowser()
        self.usage_table = QTextBrowser()
        self.events_diff = QTextBrowser()
        self.diff_tabs.addTab(self.text_diff, "Text")
        self.diff_tabs.addTab(self.tools_diff, "Tool calls")
        self.diff_tabs.addTab(self.usage_table, "Usage")
        self.diff_tabs.addTab(self.events_diff, "Events")
        pick = QHBoxLayout()
        pick.addWidget(QLabel("Diff A"))
        pick.addWidget(self.left_combo, 1)
        pick.addWidget(QLabel("against B"))
        pick.addWidget(self.right_combo, 1)
        diff_box = QWidget()
        diff_layout = QVBoxLayout(diff_box)
        diff_layout.setContentsMargins(0, 0, 0, 0)
        diff_layout.addLayout(pick)
        diff_layout.addWidget(self.diff_tabs)
        # Nothing to compare before a first run: empty diffs and a table of dashes said nothing.
        diff_box.hide()
        self.diff_box = diff_box

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(scroll)
        splitter.addWidget(diff_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setCollapsible(0, False)
        scroll.setMinimumHeight(340)
        splitter.setSizes([560, 300])
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(self.prompt)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addWidget(splitter, 1)
        self.setCentralWidget(central)

        self._diff_timer = QTimer(self)
        self._diff_timer.setSingleShot(True)
        self._diff_timer.setInterval(50)
        self._diff_timer.timeout.connect(self.refresh_diffs)
        for config in configs or [ColumnConfig(route) for route in COMPARE_ROUTES]:
            self.add_column(config)

    # ---- columns -----------------------------------------------------------------------------
    def _next_config(self) -> ColumnConfig:
        last = self.columns[-1].config if self.columns else ColumnConfig()
        return ColumnConfig(last.route, last.provider_id, last.model, last.base_url)

    def add_column(self, config: ColumnConfig) -> CompareColumn:
        column = CompareColumn(config, self.columns_box)
        column.setMinimumWidth(300)
        self.columns.append(column)
        self.columns_layout.addWidget(column, 1)
        column.changed.connect(self._diff_timer.start)
        column.removeRequested.connect(lambda c=column: self.remove_column(c))
        column.session.finished.connect(lambda _s, c=column: self._column_finished(c))
        self._refill_pickers()
        return column

    def remove_column(self, column: CompareColumn) -> None:
        if column not in self.columns or len(self.columns) <= 1:
            return
        column.session.stop()
        self._running.discard(id(column))
        self.columns.remove(column)
        column.setParent(None)
        column.deleteLater()
        self._refill_pickers()

    def _refill_pickers(self) -> None:
        for combo, default in ((self.left_combo, 0), (self.right_combo, 1)):
            current = combo.currentIndex()
            combo.blockSignals(True)
            combo.clear()
            for i, column in enumerate(self.columns):
                combo.addItem(f"{i + 1}: {column.title}")
            want = current if 0 <= current < len(self.columns) else default
            combo.setCurrentIndex(min(want, len(self.columns) - 1))
            combo.blockSignals(False)
        left, right = self.left_combo.currentIndex(), self.right_combo.currentIndex()
        if len(self.columns) >= 2 and left == right:  # a diff of a column with itself says nothing
            self.right_combo.blockSignals(True)
            self.right_combo.setCurrentIndex(1 if left == 0 else 0)
            self.right_combo.blockSignals(False)
        self.refresh_diffs()

    # ---- sending -----------------------------------------------------------------------------
    def body_for(self, route: str, model: str) -> dict[str, Any]:
        prompt = self.prompt.toPlainText().strip() or "Say hello."
        max_tokens: int | None = None
        if self.max_tokens.text().strip().isdigit():
            max_tokens = int(self.max_tokens.text().strip())
        params = RequestParams(
            model=model,
            stream=True,
            system=self.system.text().strip() or None,
            prompt=prompt,
            max_tokens=max_tokens,
            include_usage=True if route == "chat" else None,
        )
        return with_earlier(build_body(route, params), route, self.conversation)

    def _spec(self, column: CompareColumn) -> Any:
        config = column.config
        body = self.body_for(config.route, config.model)
        if self.spec_maker is not None:
            return self.spec_maker(config, body)
        from playground.transport.providers import provider_by_id
        from playground.transport.secrets import get_key
        from playground.transport.spec import make_spec

        provider = provider_by_id(config.provider_id)
        base = config.base_url or (self.default_base_url if provider.builtin else "") or None
        key = None if provider.builtin else get_key(provider)
        # No window to ask from: a key over plain http is refused by the transport, and the
        # column says why.
        return make_spec(
            provider, config.route, body, key, base_url=base, sim_headers=self.sim_headers
        )

    def send_all(self) -> None:
        self.error.setText("")
        self.error.hide()
        problems: list[str] = []
        for column in self.columns:
            column._sync()
            try:
                spec = self._spec(column)
            except Exception as exc:  # a bad column says why; the others still go
                problems.append(f"{column.title}: {exc}")
                continue
            if spec is not None:
                self._running.add(id(column))
                column.session.start(spec)
                self.diff_box.show()
        self._refill_pickers()
        if problems:
            self.error.setText(" · ".join(problems))
            self.error.show()

    def stop_all(self) -> None:
        for column in self.columns:
            column.session.stop()

    def _column_finished(self, column: CompareColumn) -> None:
        # (``finished`` comes from inside the column's task, so ``is_running`` is still true.)
        was_running = id(column) in self._running
        self._running.discard(id(column))
        if was_running and not self._running:
            QTimer.singleShot(0, self._all_finished)

    def _all_finished(self) -> None:
        self.refresh_diffs()
        self.allFinished.emit()

    # ---- diffs -------------------------------------------------------------------------------
    def _pair(self) -> tuple[CompareColumn, CompareColumn] | None:
        i, j = self.left_combo.currentIndex(), self.right_combo.currentIndex()
        if not (0 <= i < len(self.columns) and 0 <= j < len(self.columns)):
            return None
        return self.columns[i], self.columns[j]

    def refresh_diffs(self) -> None:
        with contextlib.ExitStack() as held:  # the columns' states, still for the diff's time
            for column in self.columns:
                held.enter_context(column.session.reading())
            self._refresh_diffs()

    def _refresh_diffs(self) -> None:
        pair = self._pair()
        states = [c.state for c in self.columns]
        self.usage_table.setHtml(
            usage_html([c.title for c in self.columns], states, [c.timing for c in self.columns])
        )
        if pair is None:
            for view in (self.text_diff, self.tools_diff, self.events_diff):
                view.setHtml("")
            return
        a, b = pair
        self.text_diff.setHtml(text_diff_html(a.text, b.text))
        # The indent stops growing with depth (json_stream.pretty): arguments nested hundreds
        # deep would otherwise lay out as a multiple of their size in spaces.
        tools_a = pretty(json.dumps(tool_calls_of(a.state), ensure_ascii=False))
        tools_b = pretty(json.dumps(tool_calls_of(b.state), ensure_ascii=False))
        if tools_a == tools_b == "[]":
            self.tools_diff.setHtml("<p>Neither run called a tool.</p>")
        else:
            self.tools_diff.setHtml(text_diff_html(tools_a, tools_b))
        seq_a = run_length(event_sequence(a.session.decoder)) if a.session.decoder else []
        seq_b = run_length(event_sequence(b.session.decoder)) if b.session.decoder else []
        self.events_diff.setHtml(sequence_diff_html(seq_a, seq_b))

    def closeEvent(self, event: Any) -> None:
        self.stop_all()
        super().closeEvent(event)
