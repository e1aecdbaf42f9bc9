"""StructuredView: a JSON Schema answer shown as JSON while it streams, with its verdict under it.

When a run's request gives a JSON Schema response format (protocol/structured.py reads it), the
panel shows this view in place of the Markdown answer: the text pretty-printed as it grows
(append-only, views/json_stream.py), checked against the schema as soon as it parses (a parse
is tried only when a top-level value closes, at most once per frame) and again at the end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from playground.ui.kit.theme import mono_font
from playground.ui.views.json_stream import JsonPrettyStream

if TYPE_CHECKING:
    from playground.protocol.state import StreamState
    from playground.protocol.structured import StructuredCheck, Verdict
    from playground.ui.views.output_view import ViewHost

__all__ = ["StructuredView", "structured_dump"]

_OK = "color: #2e7d32;"
_BAD = "color: #c0392b;"
_WAIT = "color: gray;"


def _schema_of(panel: ViewHost | None) -> Any:
    decoder = panel.session.decoder if panel is not None else None
    return decoder.asked.schema if decoder is not None else None


class StructuredView(QWidget):
    """The answer as JSON and a line saying whether it validates (each error with its path)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(mono_font())
        self.text.setUndoRedoEnabled(False)
        self.text.setPlaceholderText("The structured answer appears here as JSON.")
        layout.addWidget(self.text, 1)
        self.verdict_line = QLabel()
        self.verdict_line.setObjectName("schemaVerdict")
        self.verdict_line.setWordWrap(True)
        self.verdict_line.setTextFormat(self.verdict_line.textFormat().PlainText)
        layout.addWidget(self.verdict_line)
        self.check: StructuredCheck | None = None
        self.verdict: Verdict | None = None
        self._pretty = JsonPrettyStream()
        self._shown = 0
        self._ended = False  # finish() ran for this run
        self._hooked = False  # listening to the panel's session for runs that end unread
        self.hide()

    # ---- OutputView -------------------------------------------------------------------------
    def reset(self) -> None:
        self.text.clear()
        self._pretty = JsonPrettyStream()
        self._shown = 0
        self.verdict = None
        self._ended = False
        panel = self._route_panel()
        if panel is not None and not self._hooked:
            # A run refused before its stream (an HTTP error) never reaches finish(): said here.
            panel.session.finished.connect(self._session_finished)
            self._hooked = True
        schema = _schema_of(panel)
        if schema is None:
            self.check = None
        else:
            from playground.protocol.structured import StructuredCheck

            self.check = StructuredCheck(schema)
            self._say("Checking against the schema once the answer is whole JSON…", _WAIT)
        active = self.check is not None
        self.setVisible(active)
        answer = panel.built_widgets().get("answer") if panel is not None else None
        if answer is not None:
            answer.setVisible(not active)

    def refresh(self, state: StreamState) -> None:
        if self.check is None:
            return
        text = state.text
        if len(text) < self._shown:
            self.reset()
        new = text[self._shown :]
        if not new:
            return
        self._shown = len(text)
        cursor = self.text.textCursor()
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(self._pretty.feed(new))
        verdict = self.check.update(text)
        if verdict is not None:
            self._show(verdict)

    def _session_finished(self, status: str) -> None:
        if self.check is not None and not self._ended:
            self._say(f"Not checked: the run ended {status} before an answer.", _BAD)

    def finish(self, state: StreamState) -> None:
        self._ended = True
        if self.check is None:
            return
        self.refresh(state)
        from playground.protocol.structured import answered

        if answered(state):
            self._show(self.check.final(state.text))
        elif state.tool_calls and not state.text:
            self._say("No answer yet: the model called tools (send their results).", _WAIT)
        else:
            self._say(f"Not checked: the run ended {state.status} before a whole answer.", _BAD)

    def has_content(self) -> bool:
        return self._shown > 0

    def highlight_item(self, item: int) -> None:
        """The JSON is re-indented, so no span maps back to an event (the Markdown view's does)."""

    def _route_panel(self) -> ViewHost | None:
        """The panel this view is shown in (found up the widget tree, so no reference to it is
        held: a Python cycle between a widget and its parent, collected in the wrong order,
        crashes PySide, as ui/conversation/thread.py says)."""
        from playground.ui.views.output_view import ViewHost

        widget = self.parentWidget()
        while widget is not None:
            if isinstance(widget, ViewHost):
                return widget
            widget = widget.parentWidget()
        return None

    # ---- the verdict line ---------------------------------------------------------------------
    def _show(self, verdict: Verdict) -> None:
        self.verdict = verdict
        if verdict.valid:
            self._say("✓ valid against the schema", _OK)
        else:
            self._say("✗ not valid:\n" + "\n".join(verdict.errors), _BAD)

    def _say(self, text: str, style: str) -> None:
        self.verdict_line.setText(text)
        self.verdict_line.setStyleSheet(style)


def structured_dump(panel: ViewHost) -> dict[str, Any]:
    """``structured`` for ``--dump-state`` when the run's request gave a JSON Schema: the final
    answer's verdict, ``{"valid": bool, "errors": [str]}``."""
    schema = _schema_of(panel)
    state = panel.session.state
    if schema is None or state is None:
        return {}
    from playground.protocol.structured import answered, check

    if answered(state):
        return {"structured": check(schema, state.text).as_json()}
    reason = (
        "no answer text: the model called tools"
        if state.tool_calls and not state.text
        else f"the run ended {state.status} before a whole answer"
    )
    return {"structured": {"valid": False, "errors": [reason]}}
