"""ThreadEditing: what the user does to a thread's turns — edit, insert, regenerate — and carrying
the thread to another route's panel or to Compare.

Every change goes through the pure Conversation helpers (protocol/conversation/model.py) and
ends in ``ConversationThread.refresh``, so the JSON body view shows the thread as it now is.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker

from playground.protocol.requests import route_spec
from playground.protocol.routes import CONVERSATIONAL

# The model is imported by the edits that make turns: the thread (and this) is built before the
# first frame, which shows no turn (startup time).
if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation, Role
    from playground.ui.conversation.thread import ConversationThread

__all__ = ["COMPARE", "ThreadEditing"]

COMPARE = "compare"  # the Send to target that is the compare window, not a panel


class ThreadEditing:
    """Connects a ThreadView's edit, insert, regenerate and Send to actions to its thread."""

    def __init__(self, thread: ConversationThread) -> None:
        self._thread = weakref.ref(thread)  # the thread owns this; no cycle through Qt
        view = thread.view
        view.editSaved.connect(self._weak(ThreadEditing.edit))
        view.insertSaved.connect(self._weak(ThreadEditing.insert))
        view.regenerateRequested.connect(self._weak(ThreadEditing.regenerate))
        view.sendToRequested.connect(self._weak(ThreadEditing.send_to))
        targets = [(route_spec(r).title, r) for r in CONVERSATIONAL if r != thread.route]
        view.set_targets([*targets, ("Compare", COMPARE)])

    def _weak(self, method: Any) -> Any:
        ref = weakref.ref(self)

        def call(*args: Any) -> None:
            target = ref()
            if target is not None:
                method(target, *args)

        return call

    @property
    def thread(self) -> ConversationThread:
        thread = self._thread()
        assert thread is not None, "the editing outlived its thread"
        return thread

    def _set(self, conversation: Conversation, live: int | None) -> None:
        thread = self.thread
        thread.turns = list(conversation.turns)
        thread.live = live
        thread.refresh()

    # ---- the turns ----------------------------------------------------------------------------
    def edit(self, index: int, text: str) -> None:
        """Save of an Edit: the turn's text replaced, everything else in it kept. An earlier
        question changed starts a branch there (branching.py), the turns after it kept in the
        one before."""
        thread = self.thread
        if not 0 <= index < len(thread.turns):
            return
        from playground.protocol.conversation.model import with_text

        conversation = thread.conversation()
        turn = with_text(conversation.turns[index], text)
        if turn.role == "user" and index < len(thread.turns) - 1 and turn != thread.turns[index]:
            thread.branching.fork(index, (turn,))  # what followed is kept as a branch
            return
        # An edited answer is shown in its block: the live views below still show the old one.
        live = None if index == thread.live else thread.live
        self._set(conversation.replace_turn(index, turn), live)

    def insert(self, place: int, role: str, text: str) -> None:
        """Save of an Insert: a new ``role`` turn at ``place`` (an empty one is not added)."""
        thread = self.thread
        if not 0 <= place <= len(thread.turns) or role not in ("user", "assistant"):
            return
        if not text.strip():
            thread.view.cancel_insert()
            return
        from playground.protocol.conversation.model import Turn

        chosen: Role = "user" if role == "user" else "assistant"
        live = thread.live
        if live is not None and place <= live:
            live += 1
        self._set(thread.conversation().insert(place, Turn.of(chosen, text)), live)

    def regenerate(self, index: int) -> None:
        """Drop assistant turn ``index`` and every turn after it, and send the turns before it
        (the prompt box is not a new turn here; what it holds stays there for later). What was
        dropped is kept as a branch beside the new answer (branching.py)."""
        thread = self.thread
        panel = thread.panel
        turns = thread.turns
        if panel.session.is_running or not 0 < index < len(turns):
            return
        if turns[index].role != "assistant":
            return
        with thread.prompt_set_aside():
            thread.branching.fork(index, ())  # the old answer and what followed: a branch
            try:
                panel.send()
            finally:
                thread.branching.settle()  # no run started: the old answer is shown again

    # ---- carrying the thread ------------------------------------------------------------------
    def send_to(self, target: str) -> None:
        """Send to: asks for the thread (and the system and prompt boxes) to be carried into
        ``target``'s panel, or into Compare as its columns' conversation. The thread knows no
        window: whoever holds the panels and Compare hears ``carryRequested`` and carries it."""
        if target == COMPARE or target in CONVERSATIONAL:
            conversation, prompt = self.carried()
            self.thread.carryRequested.emit(target, conversation, prompt)

    def carried(self) -> tuple[Conversation, str]:
        """The thread as another route takes it (the System box as its system) and the prompt."""
        panel = self.thread.panel
        system = panel.editor.system_box()
        prompt = panel.editor.prompt_box()
        text = system.toPlainText() if system is not None else ""
        conversation = self.thread.conversation(text or None).carried()
        return conversation, prompt.toPlainText() if prompt is not None else ""

    def receive(self, conversation: Conversation, prompt: str) -> None:
        """A thread carried here: it replaces this one; the system and prompt boxes take theirs."""
        from playground.protocol.conversation.model import Conversation

        thread = self.thread
        editor = thread.panel.editor
        boxes = ((editor.system_box(), conversation.system or ""), (editor.prompt_box(), prompt))
        for box, text in boxes:
            if box is not None:
                with QSignalBlocker(box):
                    box.setPlainText(text)
        thread.branching.forget()  # the branches were of the thread it replaces
        # Another conversation: nothing of this panel's runs stays (``replaced``), and the
        # conversation kept for this panel goes on as a new one.
        thread.restore(list(Conversation(conversation.turns).turns))
        thread.refresh()
