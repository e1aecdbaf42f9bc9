"""The deletes kept for undo: put back last first, each at its index with its live index, and
forgotten once the thread changed otherwise; bounded."""

from __future__ import annotations

from playground.protocol.conversation.model import Turn
from playground.protocol.conversation.undo import MAX_UNDO, DeleteUndo

TURNS = [Turn.of("user", "q1"), Turn.of("assistant", "a1"), Turn.of("user", "q2")]


def test_deletes_come_back_last_first_at_their_places() -> None:
    undo = DeleteUndo()
    turns = list(TURNS)
    undo.record(turns, 1, 1)
    del turns[1]
    undo.record(turns, 0, None)
    del turns[0]
    assert turns == TURNS[2:]
    back = undo.undo(turns)
    assert back == (TURNS[:1] + TURNS[2:], None)
    back = undo.undo(back[0])
    assert back == (TURNS, 1)
    assert undo.undo(TURNS) is None and len(undo) == 0


def test_another_change_forgets_the_deletes() -> None:
    undo = DeleteUndo()
    undo.record(TURNS, 2, None)
    assert undo.current(TURNS[:2])
    assert undo.undo([*TURNS[:2], Turn.of("user", "new")]) is None
    assert len(undo) == 0
    undo.record(TURNS, 5, None)  # no such turn: nothing kept
    assert len(undo) == 0


def test_the_deletes_kept_are_bounded() -> None:
    undo = DeleteUndo()
    turns = [Turn.of("user", str(n)) for n in range(MAX_UNDO + 10)]
    while turns:
        undo.record(turns, 0, None)
        turns = turns[1:]
    assert len(undo) == MAX_UNDO
