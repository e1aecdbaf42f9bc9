"""The branch tree of a thread: forks kept as the path changes, switched back and forth, kept
on disk and read back tolerantly; any sequence of forks and switches keeps every path."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.conversation.branches import (
    MAX_BRANCHES,
    BranchTree,
    tree_from_json,
    tree_to_json,
)
from playground.protocol.conversation.model import Turn


def _t(text: str, role: str = "user") -> Turn:
    return Turn.of("user" if role == "user" else "assistant", text)


Q1, A1, Q2, A2 = _t("q1"), _t("a1", "a"), _t("q2"), _t("a2", "a")


def test_an_edited_question_keeps_the_old_continuation_as_a_branch() -> None:
    tree = BranchTree((Q1, A1, Q2, A2))
    edited = _t("q2 edited")
    tree = tree.fork(2, (edited,))
    assert tree.path == (Q1, A1, edited)
    assert tree.shown(2) == (1, 2) and tree.shown(0) is None
    # The run's answer joins the current branch.
    answer = _t("a2 new", "a")
    tree = tree.follow((Q1, A1, edited, answer))
    back = tree.switch(2, 0)
    assert back.path == (Q1, A1, Q2, A2) and back.shown(2) == (0, 2)
    again = back.switch(2, 1)
    assert again == tree  # there and back: the same tree
    assert sorted(map(str, tree.leaves())) == sorted(map(str, back.leaves()))


def test_forks_move_with_turns_inserted_or_deleted_before_them_and_go_when_rewritten() -> None:
    tree = BranchTree((Q1, A1, Q2, A2)).fork(2, (_t("x"),))
    path = tree.path
    inserted = tree.follow((_t("first"), *path))
    assert inserted.shown(3) == (1, 2) and inserted.shown(2) is None
    deleted = tree.follow(path[1:])
    assert deleted.shown(1) == (1, 2)
    # An edit of a turn before it keeps it where it is; a change after it is its branch's.
    assert tree.follow((_t("q1 edited"), *path[1:])).shown(2) == (1, 2)
    assert tree.follow((*path, _t("more", "a"))).shown(2) == (1, 2)
    # A stretch rewritten across it (here the whole thread) takes it away.
    assert tree.follow((_t("other"),)).forks == ()


def test_a_regenerate_that_never_answered_puts_the_old_answer_back() -> None:
    tree = BranchTree((Q1, A1, Q2, A2)).fork(1, ())
    assert tree.path == (Q1,) and tree.shown(1) == (1, 2)
    settled = tree.settled()
    assert settled.path == (Q1, A1, Q2, A2) and settled.forks == ()
    # With three branches, the one before the dropped one comes back.
    three = BranchTree((Q1, A1)).fork(1, (_t("b", "a"),)).fork(1, ())
    assert three.settled().path == (Q1, _t("b", "a")) and three.settled().shown(1) == (1, 2)


def test_nested_forks_go_and_come_back_with_their_branch() -> None:
    tree = BranchTree((Q1, A1, Q2, A2)).fork(1, (_t("b", "a"), Q2, A2))
    tree = tree.fork(3, (_t("c", "a"),))  # a fork inside branch 2 of the first
    assert tree.shown(3) == (1, 2)
    other = tree.switch(1, 0)
    assert other.path == (Q1, A1, Q2, A2) and other.shown(3) is None
    assert other.switch(1, 1) == tree


def test_the_alternatives_at_one_turn_are_bounded() -> None:
    tree = BranchTree((Q1, A1))
    for n in range(MAX_BRANCHES + 5):
        tree = tree.fork(1, (_t(f"answer {n}", "a"),))
    assert tree.shown(1) == (MAX_BRANCHES - 1, MAX_BRANCHES)
    assert tree.switch(1, 0).path[1].text == "answer 5"  # A1 and answers 0-4 went


def test_the_forks_are_kept_as_json_and_read_back() -> None:
    tree = BranchTree((Q1, A1, Q2, A2)).fork(1, (_t("b", "a"), Q2, A2)).fork(3, (_t("c", "a"),))
    text = json.dumps(tree_to_json(tree))
    back = tree_from_json(json.loads(text), tree.path)
    assert back == tree


def test_damaged_forks_read_back_as_none() -> None:
    path = (Q1, A1)
    good = tree_to_json(BranchTree(path).fork(1, (_t("b", "a"),)))
    damaged: list[object] = [
        "forks",
        [1],
        [{"at": 5, "before": good[0]["before"]}],  # past the path's end
        [{"at": True, "before": good[0]["before"]}],
        [{"at": 1, "before": [], "after": []}],  # no other branch
        [{"at": 1, "before": [{"turns": [{"role": "wizard", "parts": []}]}]}],
        [{"at": 1, "before": [{"turns": [], "forks": [{"at": 0, "before": []}]}]}],
        [{"at": 1, "before": [{"turns": "x"}] * (MAX_BRANCHES + 1)}],
    ]
    for value in damaged:
        assert tree_from_json(value, path) == BranchTree(path), value
    assert tree_from_json(None, path) == BranchTree(path)
    assert tree_from_json(good, path).shown(1) == (1, 2)


_TURNS = st.sampled_from([Q1, A1, Q2, A2, _t("x"), _t("y", "a")])
_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("fork"), st.integers(0, 8), st.lists(_TURNS, max_size=3)),
        st.tuples(st.just("switch"), st.integers(0, 8), st.integers(0, 4)),
        st.tuples(st.just("follow"), st.integers(0, 8), st.lists(_TURNS, max_size=3)),
    ),
    max_size=14,
)


def _check(tree: BranchTree) -> None:
    ats = [f.at for f in tree.forks]
    assert ats == sorted(set(ats)) and all(0 <= a <= len(tree.path) for a in ats)
    assert all(2 <= f.count <= MAX_BRANCHES for f in tree.forks)
    assert tree.leaves()[0] == tree.path


@settings(max_examples=300, deadline=None)
@given(start=st.lists(_TURNS, max_size=5), steps=_STEPS)
def test_any_forks_and_switches_keep_every_path(
    start: list[Turn], steps: list[tuple[Any, ...]]
) -> None:
    """A fork adds exactly its new path, a switch loses none and shows a path the tree held,
    and switching back gives the same tree again."""
    tree = BranchTree(tuple(start))
    for kind, at, arg in steps:
        if kind == "fork" and at <= len(tree.path):
            before = Counter(tree.leaves())
            tree = tree.fork(at, tuple(arg))
            assert tree.path == (*tree.path[:at], *arg)
            shown = tree.shown(at)
            if shown is not None and shown[1] < MAX_BRANCHES:  # none dropped past the bound
                assert Counter(tree.leaves()) == before + Counter([tree.path])
        elif kind == "switch":
            before_tree, was = tree, tree.shown(at)
            tree = tree.switch(at, arg)
            assert Counter(tree.leaves()) == Counter(before_tree.leaves())
            assert tree.path[:at] == before_tree.path[:at]
            if was is not None:
                assert tree.switch(at, was[0]) == before_tree
        elif kind == "follow":
            tree = tree.follow((*tree.path[:at], *arg))
        _check(tree)


def test_turns_deleted_between_two_forks_leave_the_first() -> None:
    # Found by the property above: the second fork moved onto the first one's turn.
    q = _t("q")
    tree = BranchTree((q, q, q)).fork(3, (q,)).fork(4, ())
    assert [f.at for f in tree.forks] == [3, 4]
    followed = tree.follow((q, q, q))
    assert [f.at for f in followed.forks] == [3] and followed.shown(3) == (1, 2)
