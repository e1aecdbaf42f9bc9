"""DeleteUndo: the turns deleted from a thread, put back last first while nothing else changed.

Each delete is kept with the turns it left: an undo puts the turn back only while the thread is
still exactly those turns (any other change since, an edit, a run, a new conversation, makes
the place it had meaningless, and the kept deletes are forgotten).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from playground.protocol.conversation.model import Turn

__all__ = ["MAX_UNDO", "DeleteUndo", "Deletion"]

MAX_UNDO = 50  # the deletes kept (each holds one turn; the turns are shared, not copied)


@dataclass(frozen=True, slots=True)
class Deletion:
    """One delete: the turn and its index, the live answer's index before it, the turns after."""

    index: int
    turn: Turn
    live: int | None
    left: tuple[Turn, ...]


class DeleteUndo:
    """The deletes that can be undone, newest last."""

    def __init__(self) -> None:
        self._done: list[Deletion] = []

    def __len__(self) -> int:
        return len(self._done)

    def record(self, turns: Sequence[Turn], index: int, live: int | None) -> None:
        """Turn ``index`` of ``turns`` is being deleted (``live``: the live answer's index)."""
        if not 0 <= index < len(turns):
            return
        left = (*turns[:index], *turns[index + 1 :])
        self._done.append(Deletion(index, turns[index], live, left))
        del self._done[:-MAX_UNDO]

    def current(self, turns: Sequence[Turn]) -> bool:
        """Whether the last delete can still be undone: the thread is as it left it."""
        return bool(self._done) and self._done[-1].left == tuple(turns)

    def undo(self, turns: Sequence[Turn]) -> tuple[list[Turn], int | None] | None:
        """The thread with the last deleted turn back in its place, and the live index it had;
        None if there is nothing to undo or the thread changed since (then all are forgotten)."""
        if not self.current(turns):
            self._done.clear()
            return None
        done = self._done.pop()
        restored = list(done.left)
        restored.insert(done.index, done.turn)
        return restored, done.live

    def forget(self) -> None:
        self._done.clear()
