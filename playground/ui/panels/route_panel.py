"""RoutePanel: one route's editor, Send/Stop, live output widgets, status line and error banner."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.requests import route_spec
from playground.protocol.routes import route_of
from playground.sim.fault_names import FAULTS
from playground.ui.kit.scroll_fit import fit_content_width
from playground.ui.panels.cost_parts import attach_context_parts
from playground.ui.panels.editor import RequestEditor
from playground.ui.panels.error_banner import ErrorBanner
from playground.ui.panels.sim_pickers import SimPickers
from playground.ui.panels.status_line import StatusLine
from playground.ui.runtime.session import StreamSession
from playground.ui.views.routes import route_views

if TYPE_CHECKING:
    from playground.transport.spec import RequestSpec
    from playground.ui.conversation.output_column import OutputColumn
    from playground.ui.conversation.thread import ConversationThread
    from playground.ui.panels.transcript_layout import TranscriptLayout
    from playground.ui.views.output_view import OutputView

__all__ = ["SIM_FAULTS", "RoutePanel", "SpecFactory"]

# (route, body, files, simulator headers) -> a RequestSpec, or None when the user declined (e.g. a
# key over plain http). The simulator headers (X-Sim-Fault, X-Sim-Pace, X-Sim-Tokens) only go to
# the simulator.
SpecFactory = Callable[
    [str, dict[str, Any], list[Any] | None, dict[str, str]], "RequestSpec | None"
]


# While an answer streams in a transcript its height grows this many pixels at a time (about
# five lines): output_column.py says why.
ANSWER_GROWTH_STEP = 96

# The simulator's faults, from the module that names them without loading starlette (about
# 50 ms the first frame does not need: startup time).
SIM_FAULTS = FAULTS


class RoutePanel(SimPickers, QWidget):
    """The panel of one route; its StreamSession is the only thing that touches the network."""

    # The run controls (run_controls.py builds them).
    fault_label: QLabel
    fault: QComboBox
    pace: QComboBox
    length: QComboBox
    stop_button: QPushButton
    send_button: QPushButton

    sendRequested = Signal()
    itemActivated = Signal(int)  # an output widget asked to show this timeline item

    def __init__(
        self,
        route: str,
        spec_factory: SpecFactory | None = None,
        parent: QWidget | None = None,
        *,
        defer_output: bool = False,
    ) -> None:
        """``defer_output``: the output widgets are built by ``ensure_output()`` or the first use
        of ``widgets`` (a run's start at the latest), not now. Until a run starts the panel shows
        its empty state, so the window's first frame needs none of them (startup time)."""
        super().__init__(parent)
        self.route = route
        self.title = route_spec(route).title
        self.spec_factory = spec_factory
        self.session = StreamSession(route, self)
        self.on_simulator = True
        self._last_spec: RequestSpec | None = None
        self._ever_ran = False
        self.activated_by: QObject | None = None  # the output widget last clicked on an item

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        self.splitter = splitter
        self.conversational = route_of(route).conversational

        # The request form, in a scroll area that never cuts it at its side (a horizontal scroll
        # bar hid half of every field at 1024 px).
        self.editor = RequestEditor(route)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.editor)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        fit_content_width(scroll)  # also when the form grows later (the Images edit row)
        self.form_scroll = scroll
        from playground.ui.panels.run_controls import build_controls

        self.controls = build_controls(self, route)

        # The run's output: its banner, the output widgets (or the empty state), a note and the
        # status line. A conversational panel shows it inside the run's turn of the transcript.
        self.output_box = QWidget()
        output_layout = QVBoxLayout(self.output_box)
        output_layout.setContentsMargins(0, 0, 0, 0)
        self.banner = ErrorBanner()
        output_layout.addWidget(self.banner)
        self.stack = QStackedWidget()
        self.layout_of = route_views(route)
        self.empty = QLabel(self.layout_of.empty_text)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: gray; font-size: 13px; padding: 24px;")
        self.stack.addWidget(self.empty)
        self._widgets: dict[str, QWidget] | None = None
        self._views: dict[str, OutputView] = {}
        self.output: QSplitter | None = None  # the output widgets' splitter, once built
        self.output_state: bytes | None = None  # its remembered positions (set by the window)
        output_layout.addWidget(self.stack, 1)
        self.incomplete_note = QLabel()
        self.incomplete_note.setStyleSheet("color: #e0a040; font-style: italic;")
        self.incomplete_note.setWordWrap(True)
        self.incomplete_note.hide()
        output_layout.addWidget(self.incomplete_note)
        self.status_line = StatusLine()
        output_layout.addWidget(self.status_line)
        if not self.conversational:
            left = QWidget()
            left_layout = QVBoxLayout(left)
            left_layout.setContentsMargins(0, 0, 4, 0)
            left_layout.addWidget(scroll, 1)
            left_layout.addWidget(self.controls)
            splitter.addWidget(left)
            output_layout.setContentsMargins(4, 0, 0, 0)
            splitter.addWidget(self.output_box)
            splitter.setStretchFactor(0, 2)
            splitter.setStretchFactor(1, 3)
            splitter.setSizes([380, 620])

        self.send_button.clicked.connect(self.send)
        self.stop_button.clicked.connect(self.stop)
        self.banner.retryRequested.connect(self.retry)
        self.banner.stopRequested.connect(self.stop)
        self.session.started.connect(self._on_started)
        self.session.updated.connect(self._on_updated)
        self.session.finished.connect(self._on_finished)
        self.session.stalled.connect(self._on_stalled)
        self.session.jobUpdated.connect(self._on_job)
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._update_status)
        self.clock0 = 0.0
        self.conversation: ConversationThread | None = None
        self.transcript: TranscriptLayout | None = None  # a conversational panel's layout
        self._retrying = ""  # what the Retry under way sends differently (said on its turn)
        self.output_column: OutputColumn | None = None  # a transcript turn's output views
        if self.conversational:
            from playground.ui.conversation.thread import ConversationThread
            from playground.ui.panels.transcript_layout import arrange_transcript

            self.conversation = ConversationThread(self)
            arrange_transcript(self, self.conversation)
            self.conversation.replaced.connect(self._conversation_replaced)
        self.requests: list[dict[str, Any]] | None = None  # the Images panel's (its dump)
        if self.layout_of.upload == "image edit":
            from playground.ui.panels.image_input import track_edits

            self.requests = track_edits(self)
        attach_context_parts(self)  # cost and cache figures, the context gauge, the warning
        if not defer_output:
            self.ensure_output()

    # ---- the output widgets (built on first use: startup time) --------------------------------
    @property
    def widgets(self) -> dict[str, QWidget]:
        """The output widgets this route shows, by role (built now if they were deferred)."""
        return self.ensure_output()

    @property
    def output_built(self) -> bool:
        return self._widgets is not None

    @property
    def views(self) -> dict[str, OutputView]:
        """The output widgets as OutputViews, by role (built now if they were deferred)."""
        self.ensure_output()
        return self._views

    def _widget_named_item(self, item: int) -> None:
        # Which widget was clicked goes with the item: the linked views highlight it in the
        # others (a stale highlight there is cleared), not in the one clicked.
        self.activated_by = self.sender()
        self.itemActivated.emit(item)

    def built_widgets(self) -> dict[str, QWidget]:
        """The output widgets if they are built, else nothing (never builds them)."""
        return self._widgets or {}

    def ensure_output(self) -> dict[str, QWidget]:
        """Build the output widgets and their splitter behind the empty state (once)."""
        if self._widgets is not None:
            return self._widgets
        from playground.ui.views.output_view import OutputView

        layout = self.layout_of
        widgets: dict[str, QWidget] = {}
        for role, make in layout.views:
            widget = make()
            assert isinstance(widget, OutputView), f"{type(widget).__name__} is no OutputView"
            widgets[role] = widget
            self._views[role] = widget
        self._widgets = widgets
        images = widgets.get("images")
        if images is not None:  # it decodes an image while its event still arrives
            self.session.chunk_tap = images.prefetch.feed  # type: ignore[attr-defined]
        for widget in widgets.values():
            signal = getattr(widget, "itemActivated", None)
            if signal is not None:
                signal.connect(self._widget_named_item)
        if self.conversational:
            # In the transcript's turn: stacked, each as tall as it shows (output_column.py).
            from playground.ui.conversation.output_column import OutputColumn

            self.output_column = OutputColumn(widgets)
            self.stack.addWidget(self.output_column)
            self._refresh_visibility()
            return widgets
        output = QSplitter(Qt.Orientation.Vertical)
        output.setChildrenCollapsible(False)
        for widget in widgets.values():
            output.addWidget(widget)
        roles = list(widgets)
        if layout.stretch is not None:
            output.setStretchFactor(roles.index(layout.stretch), 3)
        if layout.sizes:
            output.setSizes([layout.sizes.get(r, 200) for r in roles])
        if self.output_state:  # the positions remembered from the last start
            output.restoreState(self.output_state)
        self.output = output
        self.stack.addWidget(output)
        self._refresh_visibility()
        return widgets

    # ---- actions -------------------------------------------------------------------------------
    def _files(self) -> list[Any] | None:
        from playground.ui.panels.image_input import panel_files

        return panel_files(self)

    def send(self) -> None:
        """Build the request from the editor and start it (a run still going is cancelled)."""
        thread = self.conversation
        if thread is not None and thread.answer_open_calls():
            return  # open tool calls: Send (Ctrl+Enter) sends their results
        self.editor.flush()
        if thread is not None:
            prompt = self.editor.prompt_box()
            typed = bool(prompt is not None and prompt.toPlainText().strip()) or bool(
                thread.attachments
            )
            if not typed and not thread.has_turn_to_answer():
                self.say("info", "Type a message first: the box under the conversation.")
                return
            thread.prepare_send(fresh_prompt=typed)  # a failed attempt is replaced, not stacked
        if self.spec_factory is None:
            self.say("error", "No provider is configured.")
            return
        try:
            files = self._files()
        except OSError as exc:
            self.say(
                "error",
                f"Cannot read the audio file {Path(exc.filename or '').name}: "
                f"{exc.strerror or exc}.",
            )
            return
        if self.layout_of.upload == "audio" and not files:
            self.say("warning", "Pick an audio file to transcribe (or drop one on the panel).")
            return
        body = self.editor.body()
        try:
            spec = self.spec_factory(self.route, body, files, self.sim_headers())
        except Exception as exc:  # a missing base URL and the like: one sentence, no traceback
            self.say("error", str(exc) or type(exc).__name__)
            return
        if spec is None:
            return
        self._last_spec = spec
        if self.conversation is not None:
            # What is sent is the thread now, its {{variables}} as written; the prompt box empties.
            self.conversation.sent(self.editor.template_body())
        self.session.start(spec, allow_insecure_key=spec.allow_insecure_key)

    def say(self, kind: str, text: str) -> None:
        """A message about a Send that did not go: over the composer in a transcript (no turn
        is there to hold it), else in the banner over the output."""
        if self.transcript is not None:
            self.transcript.notice.show_message(kind, text)
        else:
            self.banner.show_message(kind, text)

    def said_error(self) -> str:
        """The error a Send that did not go said, if it said one."""
        for banner in (self.transcript.notice if self.transcript else None, self.banner):
            if banner is not None and banner.kind == "error" and banner.text:
                return banner.text
        return ""

    def retry(self) -> None:
        """Send the failed run's request again, built from the form as it is now (a changed
        fault, model or parameter included); the run's turn says so while it goes."""
        fault = self.fault.currentData() if self.on_simulator else None
        what = f"fault: {self.fault.currentText()}" if fault else "the form as it is now"
        thread = self.conversation
        if thread is None:
            self._retrying = f"Retrying with {what}…"
            self.send()
            return
        if self.session.is_running or not thread.prepare_retry():
            self.send()
            return
        # The turn is sent again as it is; what the message box holds waits for the next Send.
        self._retrying = f"Retrying this turn with {what}…"
        with thread.prompt_set_aside():
            self.send()

    def stop(self) -> None:
        self.session.stop()

    # ---- session signals ---
    def _on_started(self) -> None:
        self._ever_ran = True
        views = self.views  # built now if idle time has not built them yet
        self.stack.setCurrentIndex(1)
        for view in views.values():
            view.reset()
        self.banner.clear()
        if self.transcript is not None:
            self.transcript.notice.clear()
        if self.conversation is not None:
            self.conversation.run_started()  # a replay or an opened capture: a turn of its own
        if self.output_column is not None:
            self.output_column.growth_step = ANSWER_GROWTH_STEP
        answer = views.get("answer")
        if self.output_column is not None and answer is not None:
            answer.set_placeholder("Waiting for the first token…")  # type: ignore[attr-defined]
        retrying, self._retrying = self._retrying, ""
        if retrying:
            self.banner.show_message("info", retrying)
        self.incomplete_note.hide()
        self.status_line.clear()
        self.status_line.set_status("connecting")
        self.send_button.setText("Send")
        self.stop_button.setEnabled(True)
        self.clock0 = time.perf_counter()
        self._tick.start()
        self._refresh_visibility()

    def _on_updated(self) -> None:
        state = self.session.state
        if state is None:
            return
        status = self.session.run.status
        if status is None or status < 400:  # an error body is the banner's, not the widgets'
            for widget in self.views.values():
                try:
                    widget.refresh(state)
                except Exception as exc:  # a widget bug must not stop the stream
                    self._widget_failed(widget, exc)
        self._refresh_visibility()
        self._fit_output()
        self._update_status()

    def _fit_output(self) -> None:
        if self.output_column is not None:
            self.output_column.fit()

    def _conversation_replaced(self) -> None:
        """Another conversation took the thread: nothing of this one's runs stays on screen (a
        run still streaming into it is stopped; a replay opened with it goes on)."""
        session = self.session
        if session.is_running and not session.run.replay:
            session.stop()
        if not session.is_running:
            for view in self.built_widgets().values():
                view.reset()  # type: ignore[attr-defined]
            self.stack.setCurrentIndex(0)
            self.status_line.clear()
        self.banner.clear()
        self.incomplete_note.hide()
        if self.transcript is not None:
            self.transcript.notice.clear()

    def _widget_failed(self, widget: object, exc: Exception) -> None:
        self.banner.show_message(
            "warning", f"{type(widget).__name__} could not show an update ({type(exc).__name__})."
        )

    def _on_finished(self, status: str) -> None:
        self._tick.stop()
        self.stop_button.setEnabled(False)
        state = self.session.state
        run = self.session.run
        if state is not None and not (run.status is not None and run.status >= 400):
            for widget in self.views.values():
                try:
                    widget.finish(state)
                except Exception as exc:
                    self._widget_failed(widget, exc)
        if self.output_column is not None:
            from playground.ui.runtime.frames import after_paint_or_now

            self.output_column.growth_step = 0  # the answer as tall as its text, to the pixel
            # The answer's final height (its last block rendered) laid out after the last
            # frame's paint: the column's relayout cost that frame ~5 ms (the session benchmark).
            after_paint_or_now(self._fit_output)
        self._update_status()
        self._show_outcome(status)
        # After the outcome: a transcript turn with nothing to show is its banner and figures.
        self._refresh_visibility()

    def _on_job(self, job: object) -> None:
        """Music: the polled job's status and progress go to the MusicView."""
        view = self.widgets.get("music")
        if view is not None:
            view.follow_job(job)  # type: ignore[attr-defined]

    def _on_stalled(self, seconds: float) -> None:
        from playground.ui.panels.status_feed import show_stall

        show_stall(self, seconds)

    def _show_outcome(self, status: str) -> None:
        from playground.ui.panels.run_outcome import show_outcome

        show_outcome(self, status)

    # ---- status ---
    def _refresh_visibility(self) -> None:
        """Chat-like panels hide the thinking and tool views until something arrives for them;
        in a transcript the run's turn shows its views once something arrived for any of them
        (a refused request's turn is its banner and its status line)."""
        running_or_ran = self._ever_ran
        for role, widget in self.built_widgets().items():
            if role in self.layout_of.on_content:
                widget.setVisible(running_or_ran and self._views[role].has_content())
        if self.output_column is not None:
            shows = any(view.has_content() for view in self._views.values())
            self.stack.setVisible(shows or (self.session.is_running and not self.banner.text))

    def _update_status(self) -> None:
        from playground.ui.panels.status_feed import update_status

        with self.session.reading():  # its timer ticks between frames too
            update_status(self)

    # ---- headless dump ---
    def dump_state(self) -> dict[str, Any]:
        """What this panel's widgets show (the headless contract's JSON)."""
        from playground.ui.panels.dump import dump_panel

        return dump_panel(self)
