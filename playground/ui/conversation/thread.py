"""ConversationThread: a conversational panel's thread, kept between runs and sent with each.

The thread holds the turns before the prompt box. Send sends them with the prompt as the next
user turn (the editor's body, merged through the route's translation); what was sent becomes the
thread, and the answer joins it as an assistant turn when the stream ends. An answer that ends
with tool calls gets a result editor per call; Send results appends the route's tool turn and
sends again, for as many rounds as the model calls tools.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter

from playground.protocol.conversation import (
    Conversation,
    Turn,
    assistant_turn,
    conversation_keys,
    parse_body,
    redact_base64,
    thread,
    tool_turn,
)
from playground.ui.conversation.thread_view import ThreadView

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["ConversationThread"]


def _has_content(turn: Turn) -> bool:
    return bool(turn.text.strip() or len(turn.parts) > 1 or turn.images or turn.tool_results)


class ConversationThread(QObject):
    """The thread of one chat, responses or messages panel, and its view above the answer."""

    changed = Signal()

    def __init__(self, panel: RoutePanel) -> None:
        super().__init__(panel)
        self.panel = panel
        self.route = panel.route
        self.turns: list[Turn] = []
        self.live: int | None = None  # the index of the answer the live views show
        self.requests: list[dict[str, Any]] = []  # every request sent, as the dump shows it
        self.auto_results: dict[str, str] = {}  # tool name -> canned result (--tool-result)
        self._sent_run = False
        self.view = ThreadView()
        self.view.deleteRequested.connect(self.delete)
        self.view.resultsSubmitted.connect(self.send_results)
        self.view.newRequested.connect(self.clear)
        self.view.hide()
        panel.editor.merge_thread = self.merge
        panel.editor.absorb_thread = self.absorb
        panel.session.started.connect(self._on_started)
        panel.session.finished.connect(self._on_finished)
        # The thread sits above the live output, in a splitter so either can have the room.
        right = panel.stack.parentWidget()
        layout = right.layout() if right is not None else None
        if layout is not None:
            index = layout.indexOf(panel.stack)
            split = QSplitter(Qt.Orientation.Vertical)
            split.setChildrenCollapsible(False)
            layout.removeWidget(panel.stack)
            split.addWidget(self.view)
            split.addWidget(panel.stack)
            split.setStretchFactor(1, 3)
            layout.insertWidget(index, split, 1)  # type: ignore[attr-defined]
            self.splitter = split
        shortcut = QShortcut(QKeySequence("Ctrl+N"), panel)
        shortcut.activated.connect(self.clear)

    # ---- the body: the thread merged in, a pasted body read back ------------------------------
    def conversation(self, system: str | None = None) -> Conversation:
        return Conversation(tuple(self.turns), system)

    def merge(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` (the editor's: system and prompt) with the thread before the prompt."""
        if not self.turns:
            return body
        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return body
        new = tuple(t for t in pasted.conversation.turns if _has_content(t))
        whole = Conversation(tuple(self.turns) + new, pasted.conversation.system)
        return pasted.params | conversation_keys(self.route, whole)

    def absorb(self, body: dict[str, Any]) -> dict[str, Any]:
        """A body typed or pasted into the JSON view: its turns before the last user turn become
        the thread; the body given back holds only the system and that last turn (the form's)."""
        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return body
        turns = list(pasted.conversation.turns)
        last = turns.pop() if turns and turns[-1].role == "user" else Turn.of("user", "")
        self.turns = turns
        self.live = None
        self._show()
        keys = conversation_keys(self.route, Conversation((last,), pasted.conversation.system))
        return pasted.params | keys

    # ---- the run ----------------------------------------------------------------------------
    def sent(self, body: dict[str, Any]) -> None:
        """``body`` is being sent: its turns are the thread now, and the prompt box empties."""
        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return
        self.turns = list(pasted.conversation.turns)
        self.live = None
        self._sent_run = True
        prompt = getattr(self.panel.editor, "prompt", None)
        if prompt is not None and prompt.toPlainText():
            prompt.setPlainText("")  # the editor rebuilds its body with the thread
        self._show()

    def _on_started(self) -> None:
        spec = self.panel._last_spec  # the spec the panel has just started
        sent, self._sent_run = self._sent_run, False
        if not sent or spec is None or spec.json_body is None:
            return
        body: Any = copy.deepcopy(spec.json_body)
        for secret in spec.secrets():
            if secret:
                body = _scrub(body, secret)
        self.requests.append({"path": urlsplit(spec.url).path, "body": redact_base64(body)})

    def _on_finished(self, status: str) -> None:
        session = self.panel.session
        state, decoder, run = session.state, session.decoder, session.run
        if state is None or decoder is None or run.replay:
            return
        if (run.status is not None and run.status >= 400) or status == "failed":
            return
        payloads = [decoder.payload(i) for i in range(len(decoder.items))]
        turn = assistant_turn(state, payloads)
        if not turn.parts:
            return
        self.turns.append(turn)
        self.live = len(self.turns) - 1
        self._show()
        self.panel.editor.rebuild()
        calls = self.conversation().open_calls
        if calls and all(c.name in self.auto_results for c in calls):
            # Answered at once, as Send results would (after this slot: a new run starts).
            QTimer.singleShot(0, lambda: self.send_results(self._canned()))

    def _canned(self) -> list[tuple[str, str]]:
        return [(c.id, self.auto_results[c.name]) for c in self.conversation().open_calls]

    # ---- what the user does -------------------------------------------------------------------
    def send_results(self, results: list[tuple[str, str]]) -> None:
        """Answer the open calls (one result each, together) and send the thread on."""
        if not results or self.panel.session.is_running:
            return
        self.turns.append(tool_turn(results))
        self.live = None
        self._show()
        self.panel.editor.rebuild()
        self.panel.send()

    def delete(self, index: int) -> None:
        if not 0 <= index < len(self.turns):
            return
        del self.turns[index]
        if self.live is not None:
            if index == self.live:
                self.live = None
            elif index < self.live:
                self.live -= 1
        self._show()
        self.panel.editor.rebuild()

    def clear(self) -> None:
        """New conversation: no turns (the system and the prompt boxes stay as they are)."""
        self.turns = []
        self.live = None
        self._show()
        self.panel.editor.rebuild()

    def _show(self) -> None:
        calls = self.conversation().open_calls
        self.view.show_thread(
            self.turns, live=self.live, open_calls=calls, prefill=self.auto_results
        )
        self.view.setVisible(bool(self.turns))
        self.changed.emit()

    def dump(self) -> dict[str, Any]:
        """The headless dump's ``thread`` and ``requests``."""
        system = getattr(self.panel.editor, "system", None)
        text = system.toPlainText() if system is not None else ""
        return {"thread": thread(self.conversation(text or None)), "requests": self.requests}


def _scrub(value: Any, secret: str) -> Any:
    """``value`` with ``secret`` replaced in every string (no key in a dump)."""
    if isinstance(value, str):
        return value.replace(secret, "<redacted>")
    if isinstance(value, dict):
        return {k: _scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secret) for v in value]
    return value
