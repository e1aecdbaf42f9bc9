"""ConversationThread: a conversational panel's thread, kept between runs and sent with each.

The thread holds the turns before the prompt box. Send sends them with the prompt as the next
user turn (the editor's body, merged through the route's translation); what was sent becomes the
thread, and the answer joins it as an assistant turn when the stream ends. An answer that ends
with tool calls gets a result editor per call; Send results appends the route's tool turn and
sends again, for as many rounds as the model calls tools. Editing the turns and carrying the
thread elsewhere are thread_edit.py's.
"""

from __future__ import annotations

import contextlib
import copy
import time
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, QSignalBlocker, Signal
from PySide6.QtGui import QKeySequence, QShortcut

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
        self._sent_texts: dict[str, str] = {}  # the last request's long strings (shared_texts.py)
        self.auto_results: dict[str, str] = {}  # tool name -> canned result (--tool-result)
        self.attachments: list[Image] = []  # images for the next user turn (--attach)
        self._sent_run = False
        # The run whose answer has not joined the thread: "streaming" from the Send on, then
        # "failed" or "cancelled" when it ended without an answer (its turn stays on screen with
        # its banner, Retry and Edit), None once the answer joined or the conversation changed.
        # Each answer's figures (TTFT, tok/s, tokens, time) as its run's status line ended, by
        # its role and text (the thread is read back from each body sent, and a route's body
        # keeps less than the answer had): its block shows them once another run's views took
        # its place.
        self._figures: dict[tuple[str, str], str] = {}
        self.pending: str | None = None
        # How the run the live turn shows ended ("complete", "failed", "cancelled", ...).
        self.live_status: str | None = None
        self.view = ThreadView()
        self.view.figures_for = _weakly(self.figures_of)
        self.view.deleteRequested.connect(self.delete)
        self.view.resultsSubmitted.connect(self.send_results)
        self.view.newRequested.connect(self.clear)
        self.editing = ThreadEditing(self)  # Edit, Insert, Regenerate, Send to
        self.undo_delete = UndoDelete(self)  # Ctrl+Z and the notice's Undo after a delete
        panel.editor.merge_thread = _weakly(self.merge)
        panel.editor.absorb_thread = _weakly(self.absorb)
        panel.editor.attachments.bind(self)  # its pending images are ``attachments``
        panel.session.started.connect(self._on_started)
        panel.session.finished.connect(self._on_finished)
        self.branching = ThreadBranching(self)  # after _on_finished: a run's answer, then this
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
        elif self.attachments:  # images alone, no text typed yet: they are the next user turn
            new.append(Turn("user", tuple(self.attachments)))
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
        self._forget_runs()
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
        from playground.protocol.conversation.shared_texts import long_texts, with_texts_of

        try:
            pasted = parse_body(body, self.route)
        except Exception:
            return
        # The body was parsed from the form's text: its turns' strings are new copies of the
        # ones the thread (and the answers' buffers) hold already (shared_texts.py).
        self.turns = with_texts_of(pasted.conversation.turns, long_texts(self.turns))
        self.attachments = []  # they are on the turn just sent
        self.live = None
        self.awaiting = True  # the answer's block is shown from now (ThreadView.show_thread)
        self.pending = "streaming"
        self.live_status = None
        self._sent_run = True
        self._offer_edit(False)
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
        from playground.protocol.conversation.shared_texts import long_texts, shared_value

        body: Any = copy.deepcopy(spec.json_body)
        for secret in spec.secrets():
            if secret:
                body = _scrub(body, secret)
        known: dict[str, str] = {}
        previous = self.requests[-1]["body"] if self.requests else None
        texts = {**self._sent_texts, **long_texts(self.turns)}
        body = shared_value(redact_base64(body), texts, known, previous)
        self._sent_texts = known
        self.requests.append({"path": urlsplit(spec.url).path, "body": body})
        self._open_facts = {"sent_at": time.monotonic(), "usage": None}
        self.request_facts.append(self._open_facts)

    def run_started(self) -> None:
        """A run the thread did not send (a replay, a proxied exchange, an opened capture)
        started in the panel: it streams into the live turn if there is one (a replay of the
        last answer plays in place), else into a turn of its own at the end."""
        if self.awaiting or self.live is not None:
            return
        self.awaiting = True
        self.pending = "streaming"
        self.live_status = None
        self._show()

    def _on_finished(self, status: str) -> None:
        facts, self._open_facts = self._open_facts, None
        state = self.panel.session.state
        if facts is not None and state is not None and state.usage is not None:
            facts["usage"] = copy.deepcopy(state.usage)
        awaited = self.awaiting
        self.live_status = status
        turn = self._answer(status)
        if turn is None:
            if awaited:
                # No answer joined: the turn kept for it stays, and says why on itself (its
                # banner, with Retry); a new Send replaces the attempt (``prepare_send``). A
                # replay's run ("ended") stays shown, as it ended.
                self.pending = _ended_as(status, self.panel.session.run)
                self._offer_edit(self.pending in ("failed", "cancelled"))
                self.changed.emit()
            return
        self.join_answer(turn)
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

    # ---- a failed attempt: replaced by the next Send, or sent again by Retry -------------------
    def prepare_send(self, *, fresh_prompt: bool) -> None:
        """Before a Send: a failed, cancelled or still streaming attempt's user turn goes when
        the message box holds a new message (it replaces the attempt), and stays to be sent again
        when the box is empty; either way the thread never holds two user turns for one answer."""
        # A run still streaming is stopped by this Send, as Stop would: its attempt is replaced
        # as a cancelled one's is (else its user turn stayed, unanswered, under the new one).
        replaced = self.pending == "streaming" and self.panel.session.is_running
        if self.pending not in ("failed", "cancelled") and not replaced:
            return
        if fresh_prompt and self.turns and self.turns[-1].role == "user":
            self.turns.pop()
        self._end_attempt()

    def prepare_retry(self) -> bool:
        """Before a Retry: the thread ends with the user turn the failed run answered (a partial
        answer it left is dropped). False when there is no such turn to send again."""
        ended = self.live_status in ("failed", "truncated", "cancelled", "incomplete")
        if ended and self.live is not None and self.live == len(self.turns) - 1:
            self.turns.pop()  # the partial answer: the retry answers its turn afresh
            self.live = None
        self._end_attempt()
        return self.has_turn_to_answer()

    def _offer_edit(self, on: bool) -> None:
        """The failed attempt's turn offers Edit (of the message it failed for) beside Retry."""
        block = self.view.host_block()
        if block is not None and block.coming:
            block.edit_button.setEnabled(on)
            block.edit_button.setToolTip(
                "Edit the message this turn failed for, then Send it again"
                if on
                else "Edit this turn's text in place"
            )

    @contextlib.contextmanager
    def prompt_set_aside(self) -> Iterator[None]:
        """The message box emptied while the thread is sent as it is (Regenerate, Retry), and
        given back after: what it holds is the next turn, not this one."""
        editor = self.panel.editor
        prompt = editor.prompt_box()
        kept = prompt.toPlainText() if prompt is not None else ""
        if prompt is not None and kept:
            with QSignalBlocker(prompt):  # the body is rebuilt once, here
                prompt.setPlainText("")
            editor.rebuild()
        try:
            yield
        finally:
            if prompt is not None and kept:
                prompt.setPlainText(kept)  # and the body shows it as the next turn again

    def has_turn_to_answer(self) -> bool:
        """The thread ends with a turn the model has not answered (a user turn, tool results)."""
        return bool(self.turns) and self.turns[-1].role in ("user", "tool")

    def drop_attempt(self) -> None:
        """The failed or cancelled attempt's turn goes from the screen (its thread is not
        changed here: whoever drops it shows the thread it wants)."""
        self._end_attempt()

    def _end_attempt(self) -> None:
        self.pending = None
        self.awaiting = False
        self.live_status = None
        self.panel.editor.rebuild()  # the body is read right after this, by the Send

    def turn_state(self, *, running: bool) -> str:
        """The state of the run's turn (the last one shown): ``streaming``, ``failed``,
        ``cancelled`` or ``done`` (the headless dump's ``transcript``)."""
        if running or self.pending == "streaming":
            return "streaming"
        if self.pending in ("failed", "cancelled"):
            return self.pending
        if self.live_status in ("failed", "truncated"):
            return "failed"
        if self.live_status == "cancelled":
            return "cancelled"
        return "done"

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
        self._forget_runs()
        self.replaced.emit()
        self.refresh()

    def restore(self, turns: list[Turn], *, replaying: bool = False) -> None:
        """Put back a thread kept elsewhere (a preset, a reopened run); the body is left as is.
        ``replaying``: the run that answered it is being replayed into the panel now; its turn
        shows it, and takes the answer at the end (``join_answer``)."""
        self.turns = list(turns)
        # Every turn in its own block: no run's views show a turn of another conversation.
        self.live = None
        self._forget_runs()
        self.replaced.emit()
        if replaying:
            self.awaiting = True
            self.pending = "streaming"
        self._show()

    def figures_of(self, turn: Turn) -> str:
        """The status line ``turn``'s run ended with (its figures), if it was answered here."""
        return self._figures.get((turn.role, turn.text), "") if turn.role == "assistant" else ""

    def _keep_figures(self, turn: Turn) -> None:
        if len(self._figures) > 2 * len(self.turns) + 8:  # turns deleted or edited since
            alive = {(t.role, t.text) for t in self.turns}
            self._figures = {k: v for k, v in self._figures.items() if k in alive}
        text = self.panel.status_line.text()
        if text and text != "idle":
            self._figures[(turn.role, turn.text)] = text

    def join_answer(self, turn: Turn) -> None:
        """``turn``, the answer of the run the live views show, joins the thread as its last."""
        self._keep_figures(turn)
        self.awaiting = False
        self.pending = None
        self.turns.append(turn)
        self.live = len(self.turns) - 1
        self.refresh()

    def _forget_runs(self) -> None:
        """Another conversation takes the thread's place: nothing of this one's runs stays."""
        self.pending = None
        self.awaiting = False
        self.live_status = None

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
        # The composer's Send answers the open calls (their result editors under the calls).
        button = self.panel.send_button
        button.setText("Send results" if calls else "Send")
        button.setToolTip(
            "Send the tool results back and let the model go on (Ctrl+Enter)"
            if calls
            else "Send the message (Ctrl+Enter)"
        )
        self.changed.emit()

    def dump(self) -> dict[str, Any]:
        """The headless dump's ``thread`` and ``requests``."""
        from playground.protocol.conversation.dump import thread

        system = self.panel.editor.system_box()
        text = system.toPlainText() if system is not None else ""
        return {"thread": thread(self.conversation(text or None)), "requests": self.requests}


def _ended_as(status: str, run: Any) -> str:
    """What a run that gave the thread no answer left on its turn: ``failed`` (an error, an HTTP
    error, a cut stream), ``cancelled``, or ``ended`` (a replay's run, shown as it ended)."""
    if run.status is not None and run.status >= 400:
        return "failed"
    if status == "cancelled":
        return "cancelled"
    if status in ("failed", "truncated"):
        return "failed"
    return "ended"


def _scrub(value: Any, secret: str) -> Any:
    """``value`` with ``secret`` replaced in every string (no key in a dump)."""
    if isinstance(value, str):
        return value.replace(secret, "<redacted>")
    if isinstance(value, dict):
        return {k: _scrub(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, secret) for v in value]
    return value


def _weakly(method: Any) -> Any:
    """``method`` called through a weak reference: a no-op once its object is gone."""
    ref = weakref.WeakMethod(method)

    def call(*args: Any, **kwargs: Any) -> Any:
        target = ref()
        return None if target is None else target(*args, **kwargs)

    return call
