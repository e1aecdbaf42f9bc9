"""ConversationThread: a conversational panel's thread, kept between runs and sent with each.

The thread holds the turns before the prompt box. Send sends them with the prompt as the next
user turn (the editor's body, merged through the route's translation); what was sent becomes the
thread, and the answer joins it as an assistant turn when the stream ends. An answer that ends
with tool calls gets a result editor per call; Send results appends the route's tool turn and
sends again, for as many rounds as the model calls tools. Editing the turns and carrying the
thread elsewhere are thread_edit.py's.
"""

from __future__ import annotations

import copy
import time
import weakref
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QSplitter

from playground.protocol.requests import RequestParams, build_body
from playground.ui.conversation.auto_reply import answer_when_ended, canned
from playground.ui.conversation.branching import ThreadBranching
from playground.ui.conversation.thread_edit import ThreadEditing
from playground.ui.conversation.thread_view import ThreadView
from playground.ui.conversation.undo_delete import UndoDelete

# The chat panel's thread is built before the first frame, empty and hidden: the conversation
# model and its translations (protocol/conversation, a dozen frozen dataclasses: about 4 % of
# the instructions to that frame) are imported where a turn is first read or made.
if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation, Image, Turn
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["ConversationThread"]


def _form_keys(route: str) -> set[str]:
    """The keys of a body the form builds that are not its conversation."""
    from playground.protocol.conversation.bodies import parse_body

    built = build_body(route, RequestParams(model="", system="s", prompt="p"))
    return set(parse_body(built, route).params)


class ConversationThread(QObject):
    """The thread of one chat, responses or messages panel, and its view above the answer."""

    changed = Signal()
    # Another conversation took the thread's place (new, a preset, a reopened run, a pasted
    # body): what was kept of the one before goes on without it.
    replaced = Signal()
    # Send to: (target, conversation, prompt): a route's name or ``thread_edit.COMPARE``, the
    # thread as the target takes it, and the prompt box's text.
    carryRequested = Signal(str, object, str)

    def __init__(self, panel: RoutePanel) -> None:
        super().__init__(panel)
        # Weak both ways from the panel's side: a cycle of Python references between a widget
        # and its QObject child, broken by the garbage collector in the wrong order, crashes
        # PySide (seen as a segfault collecting unparented panels).
        self._panel = weakref.ref(panel)
        self.route = panel.route
        self.turns: list[Turn] = []
        self.live: int | None = None  # the index of the answer the live views show
        self.awaiting = False  # a run this thread sent streams its answer (it has a block)
        self.requests: list[dict[str, Any]] = []  # every request sent, as the dump shows it
        # Beside each request: when it went and the usage its answer reported (the dump's cache
        # and cost, protocol/accounting/ledger.py).
        self.request_facts: list[dict[str, Any]] = []
        self._open_facts: dict[str, Any] | None = None  # the facts of the request in flight
        self._sent_texts: dict[str, str] = {}  # the last request's long strings (``_shared``)
        self.auto_results: dict[str, str] = {}  # tool name -> canned result (--tool-result)
        self.attachments: list[Image] = []  # images for the next user turn (--attach)
        self._sent_run = False
        self.splitter: QSplitter | None = None
        self.view = ThreadView()
        self.view.deleteRequested.connect(self.delete)
        self.view.resultsSubmitted.connect(self.send_results)
        self.view.newRequested.connect(self.clear)
        self.editing = ThreadEditing(self)  # Edit, Insert, Regenerate, Send to
        self.undo_delete = UndoDelete(self)  # Ctrl+Z and the notice's Undo after a delete
        self.view.hide()
        panel.editor.merge_thread = _weakly(self.merge)
        panel.editor.absorb_thread = _weakly(self.absorb)
        panel.editor.attachments.bind(self)  # its pending images are ``attachments``
        panel.session.started.connect(self._on_started)
        panel.session.finished.connect(self._on_finished)
        self.branching = ThreadBranching(self)  # after _on_finished: a run's answer, then this
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
            split.setStretchFactor(0, 2)
            split.setStretchFactor(1, 3)
            split.setSizes([280, 420])  # room for a few turns above the answer
            layout.insertWidget(index, split, 1)  # type: ignore[attr-defined]
            self.splitter = split
        # Each conversational panel has one; only the shown panel's is live (Qt matches
        # shortcuts of visible widgets only), so the three never clash.
        shortcut = QShortcut(QKeySequence("Ctrl+N"), panel)
        shortcut.activated.connect(self.clear)

    @property
    def panel(self) -> RoutePanel:
        panel = self._panel()
        assert panel is not None, "the thread outlived its panel"
        return panel

    # ---- the body: the thread merged in, a pasted body read back ------------------------------
    def conversation(self, system: str | None = None) -> Conversation:
        from playground.protocol.conversation.model import Conversation

        return Conversation(tuple(self.turns), system)

    def merge(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` (the editor's: system and prompt) with the thread before the prompt."""
        if not self.turns and not self.attachments:
            return body
        from playground.protocol.conversation.bodies import conversation_keys, parse_body
        from playground.protocol.conversation.model import Conversation, Turn
        from playground.protocol.conversation.parts import holds_something

        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return body
        new = [t for t in pasted.conversation.turns if holds_something(t)]
        if self.attachments and new and new[-1].role == "user":
            new[-1] = Turn("user", new[-1].parts + tuple(self.attachments))
        whole = Conversation(tuple(self.turns + new), pasted.conversation.system)
        return pasted.params | conversation_keys(self.route, whole)

    def absorb(self, body: dict[str, Any]) -> dict[str, Any]:
        """A body typed or pasted into the JSON view: its turns before the last user turn become
        the thread; the body given back holds only the system and that last turn (the form's)."""
        from playground.protocol.conversation.bodies import parse_body
        from playground.protocol.conversation.model import Text, Turn

        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return body
        turns = list(pasted.conversation.turns)
        last = Turn.of("user", "")
        if turns and turns[-1].role == "user" and all(isinstance(p, Text) for p in turns[-1].parts):
            last = turns.pop()  # plain text: the prompt box can hold it
        self.turns = turns
        self.live = None
        self.replaced.emit()
        self._show()
        # The system and that turn as the form itself writes them, so the form reads them back.
        system = pasted.conversation.system
        built = build_body(self.route, RequestParams(model="", system=system, prompt=last.text))
        return pasted.params | {k: v for k, v in built.items() if k not in _form_keys(self.route)}

    # ---- the run ----------------------------------------------------------------------------
    def sent(self, body: dict[str, Any]) -> None:
        """``body`` is being sent: its turns are the thread now, and the prompt box empties."""
        from playground.protocol.conversation.bodies import parse_body

        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return
        self.turns = list(pasted.conversation.turns)
        self.attachments = []  # they are on the turn just sent
        self.live = None
        self.awaiting = True  # the answer's block is shown from now (ThreadView.show_thread)
        self._sent_run = True
        prompt = self.panel.editor.prompt_box()
        if prompt is not None and prompt.toPlainText():
            prompt.setPlainText("")  # the editor rebuilds its body with the thread
        self._show()

    def _on_started(self) -> None:
        spec = self.panel._last_spec  # the spec the panel has just started
        sent, self._sent_run = self._sent_run, False
        if not sent or spec is None or spec.json_body is None:
            return
        from playground.protocol.conversation.dump import redact_base64

        body: Any = copy.deepcopy(spec.json_body)
        for secret in spec.secrets():
            if secret:
                body = _scrub(body, secret)
        known: dict[str, str] = {}
        body = _shared(redact_base64(body), self._sent_texts, known)
        self._sent_texts = known
        self.requests.append({"path": urlsplit(spec.url).path, "body": body})
        self._open_facts = {"sent_at": time.monotonic(), "usage": None}
        self.request_facts.append(self._open_facts)

    def _on_finished(self, status: str) -> None:
        facts, self._open_facts = self._open_facts, None
        state = self.panel.session.state
        if facts is not None and state is not None and state.usage is not None:
            facts["usage"] = copy.deepcopy(state.usage)
        awaited, self.awaiting = self.awaiting, False
        turn = self._answer(status)
        if turn is None:
            if awaited:  # no answer came: the block kept for it goes
                from playground.ui.runtime.frames import after_paint_or_now

                after_paint_or_now(self._show)
            return
        self.turns.append(turn)
        self.live = len(self.turns) - 1
        self.refresh()
        answer_when_ended(self, status)  # calls of tools with a canned result, with Auto-reply

    def _answer(self, status: str) -> Turn | None:
        """The assistant turn the run that ended gave, if it is one for the thread."""
        session = self.panel.session
        state, decoder, run = session.state, session.decoder, session.run
        if state is None or decoder is None or run.replay:
            return None
        if (run.status is not None and run.status >= 400) or status == "failed":
            return None
        from playground.protocol.conversation.answer import assistant_turn

        # Lazily: only messages, responses and a chat answer with signed thinking (LiteLLM's
        # thinking_blocks) read them (a 100,000-event chat answer parsed
        # every payload again here, a 1-3 s block as the run ended).
        payloads = (decoder.payload(i) for i in range(len(decoder.items)))
        turn = assistant_turn(state, payloads)
        return turn if turn.parts else None

    # ---- what the user does -------------------------------------------------------------------
    def send_results(self, results: list[tuple[str, str]]) -> None:
        """Answer the open calls (one result each, together) and send the thread on."""
        if not results or self.panel.session.is_running:
            return
        from playground.protocol.conversation.answer import tool_turn

        self.turns.append(tool_turn(results))
        self.live = None
        self.refresh()
        self.panel.send()

    def answer_open_calls(self) -> bool:
        """Send the result editors' answers if calls are open (True), else nothing (False)."""
        if not self.view.result_editors or not self.conversation().open_calls:
            return False
        self.send_results(self.view.results())
        return True

    def delete(self, index: int) -> None:
        if not 0 <= index < len(self.turns):
            return
        self.undo_delete.record(index)
        del self.turns[index]
        if self.live is not None:
            if index == self.live:
                self.live = None
            elif index < self.live:
                self.live -= 1
        self.refresh()

    def clear(self) -> None:
        """New conversation: no turns (the system and the prompt boxes stay as they are)."""
        self.turns = []
        self.live = None
        self.replaced.emit()
        self.refresh()

    def restore(self, turns: list[Turn], live: int | None = None) -> None:
        """Put back a thread kept elsewhere (a preset, a reopened run); the body is left as is."""
        self.turns = list(turns)
        self.live = live
        self.replaced.emit()
        self._show()

    def refresh(self) -> None:
        """Show the thread again, and the JSON body with it (the turns changed)."""
        from playground.ui.runtime.frames import after_paint_or_now

        # Where a run ends in a frame, the new turn shows after the frame's paint, and the JSON
        # body after that, each in a turn of its own: with 100 turns in the thread the two cost
        # 16 ms together on a 2-core AMD EPYC, beside the answer's last render. (Elsewhere, a
        # user's edit, both happen now.)
        after_paint_or_now(self._show)
        after_paint_or_now(self.panel.editor.rebuild)

    def _show(self) -> None:
        calls = self.conversation().open_calls
        self.view.show_thread(
            self.turns,
            live=self.live,
            open_calls=calls,
            prefill=canned(self),
            awaiting=self.awaiting,
        )
        self.view.setVisible(bool(self.turns))
        self._fit_pane()
        self.changed.emit()

    def _fit_pane(self) -> None:
        # The thread takes what its turns need, up to 40% of the column: a first exchange of two
        # short turns must not push the live answer into a third of the window.
        split = self.splitter
        if split is None or not self.turns:
            return
        total = sum(split.sizes()) or split.height()
        want = min(self.view.preferred_height(), int(total * 0.4))
        split.setSizes([want, max(total - want, 0)])

    def dump(self) -> dict[str, Any]:
        """The headless dump's ``thread`` and ``requests``."""
        from playground.protocol.conversation.dump import thread

        system = self.panel.editor.system_box()
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


def _shared(value: Any, last: dict[str, str], known: dict[str, str]) -> Any:
    """``value`` with each long string the last request had replaced by that one, so each turn's
    text is kept once, not once per request after it (the requests grew with the square of the
    thread: 13 MB after 50 answers of 2,000 tokens). ``known`` gets this value's long strings."""
    if isinstance(value, str):
        if len(value) < 64:
            return value
        value = last.get(value, value)
        known[value] = value
        return value
    if isinstance(value, dict):
        return {k: _shared(v, last, known) for k, v in value.items()}
    if isinstance(value, list):
        return [_shared(v, last, known) for v in value]
    return value


def _weakly(method: Any) -> Any:
    """``method`` called through a weak reference: a no-op once its object is gone."""
    ref = weakref.WeakMethod(method)

    def call(*args: Any, **kwargs: Any) -> Any:
        target = ref()
        return None if target is None else target(*args, **kwargs)

    return call
