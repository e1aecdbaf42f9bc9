"""The conversational panels' conversations, kept on disk as they change, and opened again.

Each chat, responses and messages panel has at most one kept conversation at a time: the
first run its thread makes starts one, every later run and every edit of the thread saves it
(runs/conversations.py, one atomic file each), and another conversation taking the thread's
place (new, a preset, a reopened run, a pasted body) ends it. A run ends with its id and
capture listed on the conversation, so the history's reopen, export and bundle serve any run
of it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation
    from playground.runs.conversations import ConversationStore, KeptRun, SavedConversation
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["ConversationKeeper"]


class ConversationKeeper(QObject):
    """Saves each conversational panel's thread as it changes; opens a saved one in its panel."""

    # A conversation was written (its id): the Conversations dock lists it again.
    saved = Signal(str)

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self._store: ConversationStore | None = None
        self.current: dict[str, SavedConversation] = {}  # route -> the panel's kept conversation
        self._pending: dict[str, KeptRun] = {}  # route -> the live run that panel is making
        self._opening = False
        # Every key a kept run was sent with: an answer that echoes one (a hostile gateway, a
        # model told the key) is kept with it redacted, as the history and captures are.
        self._secrets: set[str] = set()

    @property
    def store(self) -> ConversationStore:
        """The conversations' folder, opened on first use; what it set aside is said once."""
        if self._store is None:
            from playground.runs.conversations import ConversationStore
            from playground.runs.writer import shared_writer

            # Encoded, written and synced on the run files' thread: never on the UI thread.
            self._store = ConversationStore(writer=shared_writer())
        return self._store

    def say_messages(self) -> None:
        """What the store set aside or could not save, on the status bar (headless: stderr)."""
        store = self.store
        if not store.messages:
            return
        text = " ".join(store.messages)
        store.messages.clear()
        self.window.statusBar().showMessage(text, 15000)
        if not self.window.interactive:
            print(f"playground: {text}", file=sys.stderr)

    # ---- following the panels ----------------------------------------------------------------
    def attach(self, panel: RoutePanel) -> None:
        thread = panel.conversation
        if thread is None:
            return
        route = panel.route
        thread.replaced.connect(lambda r=route: self._replaced(r))
        thread.changed.connect(lambda p=panel: self._edited(p))
        # After the thread's own handler, which has added the answer as the last turn by now.
        panel.session.finished.connect(lambda _status, p=panel: self._run_ended(p))

    def note_run(self, panel: RoutePanel, run_id: str, capture: str) -> None:
        """A live run of ``panel`` began, journaled as ``run_id`` at ``capture``."""
        if panel.conversation is None:
            return
        from playground.runs.conversations import KeptRun

        self._pending[panel.route] = KeptRun(run_id, capture)

    def _replaced(self, route: str) -> None:
        if not self._opening:
            self.current.pop(route, None)

    def _run_ended(self, panel: RoutePanel) -> None:
        self._secrets.update(panel.session.secrets)
        run = self._pending.pop(panel.route, None)
        thread = panel.conversation
        if run is None or thread is None or not thread.turns:
            return  # a replay, or a run that left no thread (nothing to keep)
        from dataclasses import replace

        state = panel.session.state
        status = state.status if state is not None else None
        saved = self.current.get(panel.route)
        if saved is None:
            saved = self.store.new(panel.route, self._conversation(panel), model=self._model(panel))
            self.current[panel.route] = saved
        saved.runs.append(replace(run, status=status))
        from playground.ui.runtime.frames import after_paint_or_now

        # After the run's last frame is painted, in a turn of its own (the 3 ms a 50-answer
        # conversation takes to save are not that frame's); now, outside a frame.
        after_paint_or_now(lambda: self._save(panel, saved))

    def _edited(self, panel: RoutePanel) -> None:
        saved = self.current.get(panel.route)
        thread = panel.conversation
        if saved is None or thread is None or self._opening:
            return
        if not thread.turns:
            self.current.pop(panel.route, None)  # emptied: the next run starts another
            return
        if self._conversation(panel) != saved.conversation:
            self._save(panel, saved)

    def _save(self, panel: RoutePanel, saved: SavedConversation) -> None:
        saved.conversation = self._conversation(panel)
        saved.model = self._model(panel) or saved.model
        saved.branches = panel.conversation.branching.kept() if panel.conversation else None
        try:
            self.store.save(saved, secrets=tuple(self._secrets))
        except OSError as exc:  # a full or read-only disk: the panel goes on, and says so
            self.store.messages.append(
                f"The conversation could not be saved ({exc.strerror or type(exc).__name__})."
            )
        self.say_messages()  # an earlier background write's failure too
        self.saved.emit(saved.id)

    @staticmethod
    def _conversation(panel: RoutePanel) -> Conversation:
        thread = panel.conversation
        assert thread is not None
        system_box = panel.editor.system_box()
        system = system_box.toPlainText() if system_box is not None else ""
        return thread.conversation(system or None)

    @staticmethod
    def _model(panel: RoutePanel) -> str:
        return str(panel.editor.model or "")

    # ---- opening one again -----------------------------------------------------------------
    def unsaved_work(self, panel: RoutePanel) -> bool:
        """Whether ``panel`` holds turns or a typed prompt that no kept conversation has."""
        thread = panel.conversation
        if thread is None:
            return False
        prompt = panel.editor.prompt_box()
        if prompt is not None and prompt.toPlainText().strip():
            return True
        if not thread.turns:
            return False
        saved = self.current.get(panel.route)
        return saved is None or saved.conversation.turns != tuple(thread.turns)

    def keep_now(self, panel: RoutePanel) -> SavedConversation | None:
        """Keep ``panel``'s thread as it is (a conversation of its own if it had none)."""
        thread = panel.conversation
        if thread is None or not thread.turns:
            return None
        saved = self.current.get(panel.route)
        if saved is None:
            saved = self.store.new(panel.route, self._conversation(panel), model=self._model(panel))
            self.current[panel.route] = saved
        self._save(panel, saved)
        return saved

    def open(self, saved: SavedConversation) -> RoutePanel:
        """Show ``saved`` in its route's panel: its system, model and every turn, the prompt box
        empty; the next Send continues it (the request carries every turn)."""
        window = self.window
        panel = window.show_panel(saved.route)
        thread = panel.conversation
        if thread is None:
            raise ValueError(f"the {saved.route} panel holds no conversation")
        self._opening = True
        try:
            if panel.session.is_running:
                panel.stop()
            self._pending.pop(saved.route, None)
            system_box = panel.editor.system_box()
            if system_box is not None:
                system_box.setPlainText(saved.conversation.system or "")
            if saved.model:
                window.provider_bar.set_model(saved.model)
                panel.editor.set_model(saved.model)
            thread.restore(list(saved.conversation.turns))
            if saved.branches is not None:
                thread.branching.restore(saved.branches)
            panel.editor.set_prompt("")
            self.current[saved.route] = saved
        finally:
            self._opening = False
        panel.editor.rebuild()
        return panel
