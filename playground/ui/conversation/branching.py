"""ThreadBranching: a thread's branches (an earlier question edited, an answer regenerated), kept
and switched with a ◀ k/n ▶ control in the head of the turn where they part.

The branches are a pure ``BranchTree`` (protocol/conversation/branches.py) whose current path is
the thread's turns: whatever else changes the turns (a run's answer, an edit, a delete) is
followed, and a switch puts the chosen branch's turns after the fork in the thread, refreshed so
the JSON body shows them.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from playground.ui.conversation.turn_block import action_button
from playground.ui.kit.theme import tint

# The conversation model loads with the first turn, not with the first frame (startup time).
if TYPE_CHECKING:
    from playground.protocol.conversation.branches import BranchTree
    from playground.protocol.conversation.model import Turn
    from playground.ui.conversation.thread import ConversationThread

__all__ = ["BranchSwitch", "ThreadBranching"]


class BranchSwitch(QWidget):
    """◀ k/n ▶ in a turn's head: the branch shown at this turn, and the ones beside it."""

    def __init__(self, branching: ThreadBranching) -> None:
        super().__init__()
        self.at = 0
        self.current = 0
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        self.previous_button = action_button("◀", "The previous branch from this turn on")
        self.label = QLabel()
        tint(self.label)
        self.next_button = action_button("▶", "The next branch from this turn on")
        for widget in (self.previous_button, self.label, self.next_button):
            row.addWidget(widget)
        ref = weakref.ref(branching)
        for button, step in ((self.previous_button, -1), (self.next_button, 1)):
            button.clicked.connect(lambda _=False, s=step: _switch(ref, self, s))

    def show_branch(self, at: int, current: int, count: int, enabled: bool) -> None:
        self.at, self.current = at, current
        self.label.setText(f"{current + 1}/{count}")
        self.label.setToolTip(f"Branch {current + 1} of {count} from this turn on")
        self.previous_button.setEnabled(enabled and current > 0)
        self.next_button.setEnabled(enabled and current < count - 1)


def _switch(ref: weakref.ref[ThreadBranching], switch: BranchSwitch, step: int) -> None:
    branching = ref()
    if branching is not None:
        branching.switch(switch.at, switch.current + step)


class ThreadBranching(QObject):
    """The branch tree of one ConversationThread, and the switches in its blocks' heads."""

    def __init__(self, thread: ConversationThread) -> None:
        super().__init__(thread)
        self._thread = weakref.ref(thread)
        self._tree: BranchTree | None = None  # None: no fork yet (nothing imported)
        self._switches: dict[int, BranchSwitch] = {}  # by id() of the block it is in
        thread.changed.connect(self._changed)
        thread.replaced.connect(self._replaced)
        session = thread.panel.session
        session.started.connect(self._decorate)  # no switching while an answer streams
        session.finished.connect(self._run_ended)  # after the thread has taken the answer

    @property
    def owner(self) -> ConversationThread:
        thread = self._thread()
        assert thread is not None, "the branching outlived its thread"
        return thread

    @property
    def tree(self) -> BranchTree:
        """The branches, their current path the thread's turns as they are now."""
        from playground.protocol.conversation.branches import BranchTree

        turns = self.owner.turns
        tree = self._tree if self._tree is not None else BranchTree(tuple(turns))
        return tree.follow(turns)

    # ---- what changes the branches ------------------------------------------------------------
    def fork(self, at: int, tail: Sequence[Turn]) -> None:
        """A new branch from turn ``at`` on holding ``tail``; the turns there now are kept as the
        branch before it."""
        tree = self.tree
        if 0 <= at <= len(tree.path):
            self._apply(tree.fork(at, tail), at)

    def switch(self, at: int, k: int) -> None:
        """Branch ``k`` (from 0) of the fork at turn ``at`` shown, the thread's turns its own."""
        thread = self.owner
        if thread.awaiting:
            return  # the answer coming joins the branch it was asked from
        self._apply(self.tree.switch(at, k), at)

    def _run_ended(self, _status: str) -> None:
        self.settle()

    def settle(self) -> None:
        """A branch left empty at the thread's end (its run gave no answer, or never started)
        goes: the branch before it is shown again."""
        thread = self.owner
        if self._tree is None or thread.pending == "streaming":
            return
        tree = self.tree
        settled = tree.settled()
        if settled != tree:
            if thread.pending in ("failed", "cancelled"):
                # The new branch's run gave no answer: the branch goes and the answer before it
                # comes back; the composer says why (the failed turn goes with its branch).
                why = thread.panel.said_error() or thread.panel.banner.text or thread.pending
                thread.drop_attempt()
                thread.panel.say(
                    "warning", f"The new answer did not come ({why}); the previous one is back."
                )
            self._apply(settled, len(tree.path))
        self._decorate()

    def kept(self) -> BranchTree | None:
        """The branches as a kept conversation stores them (None: there are none)."""
        return self.tree if self._tree is not None else None

    def restore(self, tree: BranchTree) -> None:
        """The branches kept with a conversation opened again (its path the thread's turns)."""
        self._tree = tree if tree.forks else None
        self._decorate()

    def _apply(self, tree: BranchTree, at: int) -> None:
        thread = self.owner
        self._tree = tree if tree.forks else None
        if list(tree.path) == thread.turns:
            self._decorate()
            return
        thread.turns = list(tree.path)
        if thread.live is not None and thread.live >= at:
            thread.live = None  # the live views show an answer of another branch now
        thread.refresh()

    def forget(self) -> None:
        """No branches: another conversation takes the thread's place (its own, if it has
        any, come with it: ``restore``)."""
        self._tree = None
        self._decorate()

    def _replaced(self) -> None:
        self._tree = None  # the switches go as the new thread is shown

    def _changed(self) -> None:
        if self._tree is not None:
            self._tree = self.tree
            if not self._tree.forks:
                self._tree = None
        self._decorate()

    # ---- the switches ---------------------------------------------------------------------------
    def _decorate(self) -> None:
        """A switch in the head of each block where branches part, and in no other. Only those
        blocks are looked at: this runs at every change of a thread of maybe hundreds of turns."""
        thread = self.owner
        tree = self._tree
        if tree is None and not self._switches:
            return
        # Not while a run the thread sent streams (its answer joins the branch it was asked
        # from); the session itself counts as running a moment past its finished signal.
        enabled = not thread.awaiting
        blocks = thread.view.blocks
        wanted = {
            id(blocks[f.at]): (blocks[f.at], f)
            for f in (tree.forks if tree is not None else ())
            if f.at < len(blocks)
        }
        for key, switch in list(self._switches.items()):
            # (An id is a live wrapper's only: a rebuilt block's may be a new block's.)
            if key not in wanted or switch.parentWidget() is not wanted[key][0]:
                del self._switches[key]
                switch.setParent(None)
                switch.deleteLater()
        for key, (block, fork) in wanted.items():
            shown = self._switches.get(key)
            if shown is None:
                shown = self._switches[key] = BranchSwitch(self)
                block.head.insertWidget(1, shown)  # after the role, before the actions
                # Gone with its block (a block rebuilt): no longer to be looked after.
                shown.destroyed.connect(lambda _=None, k=key, w=shown: self._gone(k, w))
            shown.show_branch(fork.at, fork.current, fork.count, enabled=enabled)

    def _gone(self, key: int, switch: BranchSwitch) -> None:
        if self._switches.get(key) is switch:
            del self._switches[key]
