"""BranchTree: a thread's alternative continuations (an edited question, a regenerated answer).

The thread shows one path of turns. At a fork (a turn index) the turns from that index on have
alternatives, as the ChatGPT and Claude consoles keep them: editing an earlier question or
regenerating an answer keeps what followed as another branch instead of throwing it away. A fork
holds the branches before and after the current one; the current one is the path itself, so
whatever changes the path (a run's answer, an edit, a delete) changes the current branch. A
branch put aside keeps its own forks further down, counted from its first turn.

Everything here is immutable and pure: each operation gives a new tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from playground.protocol.conversation.model import Conversation, Turn

__all__ = ["MAX_BRANCHES", "Branch", "BranchTree", "Fork", "tree_from_json", "tree_to_json"]

# The alternatives kept at one turn: past that the oldest goes (a bound on what a long session
# of regenerating keeps, and on what a kept file may ask to be read back).
MAX_BRANCHES = 12
# Forks nested inside put-aside branches, read back from a file at most this deep.
MAX_NESTING = 32


@dataclass(frozen=True, slots=True)
class Branch:
    """A continuation put aside: its turns from the fork on, and the forks within it (their
    ``at`` counted from the branch's first turn)."""

    turns: tuple[Turn, ...]
    forks: tuple[Fork, ...] = ()


@dataclass(frozen=True, slots=True)
class Fork:
    """At turn ``at``: the branches before and after the current one (the path's own turns)."""

    at: int
    before: tuple[Branch, ...] = ()
    after: tuple[Branch, ...] = ()

    @property
    def current(self) -> int:
        """The current branch's place among the alternatives, from 0."""
        return len(self.before)

    @property
    def count(self) -> int:
        return len(self.before) + 1 + len(self.after)


def _shifted(forks: Sequence[Fork], by: int) -> tuple[Fork, ...]:
    return tuple(replace(f, at=f.at + by) for f in forks)


@dataclass(frozen=True, slots=True)
class BranchTree:
    """The current path of turns and the forks on it, by ``at`` ascending (at most one per
    index, each at most ``len(path)``)."""

    path: tuple[Turn, ...] = ()
    forks: tuple[Fork, ...] = ()

    def _find(self, at: int) -> int | None:
        return next((i for i, f in enumerate(self.forks) if f.at == at), None)

    def _packed(self, at: int) -> Branch:
        """The path from ``at`` on as a branch, with the forks after ``at`` inside it."""
        inner = [f for f in self.forks if f.at > at]
        return Branch(self.path[at:], _shifted(inner, -at))

    def shown(self, index: int) -> tuple[int, int] | None:
        """At turn ``index``: (the current branch from 0, the number of branches), if it forks."""
        i = self._find(index)
        if i is None:
            return None
        fork = self.forks[i]
        return fork.current, fork.count

    def fork(self, at: int, tail: Sequence[Turn]) -> BranchTree:
        """A new branch at ``at`` holding ``tail``, made current: the path from ``at`` on (and
        the forks within it) is kept as the branch before it."""
        if not 0 <= at <= len(self.path):
            raise IndexError(f"no turn {at} to fork at in {len(self.path)} turns")
        kept = self._packed(at)
        i = self._find(at)
        if i is None:
            earlier = tuple(f for f in self.forks if f.at < at)
            alternatives: tuple[Branch, ...] = (kept,)
        else:
            earlier = self.forks[:i]
            old = self.forks[i]
            alternatives = (*old.before, kept, *old.after)
        alternatives = alternatives[-(MAX_BRANCHES - 1) :]  # the oldest go past the bound
        return BranchTree((*self.path[:at], *tail), (*earlier, Fork(at, alternatives)))

    def switch(self, at: int, k: int) -> BranchTree:
        """Branch ``k`` (from 0) of the fork at ``at`` made current; the path from ``at`` on is
        that branch's turns. The same tree if there is no such fork or branch."""
        i = self._find(at)
        if i is None:
            return self
        fork = self.forks[i]
        if not 0 <= k < fork.count or k == fork.current:
            return self
        alternatives = (*fork.before, self._packed(at), *fork.after)
        chosen = alternatives[k]
        new_fork = Fork(at, alternatives[:k], alternatives[k + 1 :])
        return BranchTree(
            (*self.path[:at], *chosen.turns),
            (*self.forks[:i], new_fork, *_shifted(chosen.forks, at)),
        )

    def drop_current(self, at: int) -> BranchTree:
        """The fork at ``at`` without its current branch (a regenerated answer that never came):
        the branch before it is current again (else the one after); a fork left with one branch
        is no fork, its branch the path again."""
        i = self._find(at)
        if i is None:
            return self
        fork = self.forks[i]
        alternatives = (*fork.before, *fork.after)
        k = max(fork.current - 1, 0)
        chosen = alternatives[k]
        rest: tuple[Fork, ...] = ()
        if len(alternatives) > 1:
            rest = (Fork(at, alternatives[:k], alternatives[k + 1 :]),)
        return BranchTree(
            (*self.path[:at], *chosen.turns),
            (*self.forks[:i], *rest, *_shifted(chosen.forks, at)),
        )

    def settled(self) -> BranchTree:
        """Without an empty current branch at the path's end (its run gave no answer)."""
        if self.forks and self.forks[-1].at == len(self.path):
            return self.drop_current(len(self.path))
        return self

    def follow(self, turns: Sequence[Turn]) -> BranchTree:
        """The path changed to ``turns`` by other means (a run's answer, an edit, an insert or a
        delete): a fork before the change stays (the change is its current branch's), one after
        it moves with the turns, and one inside the rewritten stretch goes."""
        new = tuple(turns)
        old = self.path
        if new == old:
            return self
        same = min(len(old), len(new))
        start = 0
        while start < same and old[start] == new[start]:
            start += 1
        end = 0  # the turns equal at both ends, after the common start
        while end < same - start and old[-1 - end] == new[-1 - end]:
            end += 1
        moved = len(new) - len(old)
        kept: list[Fork] = []
        for fork in self.forks:
            if fork.at <= start:
                kept.append(fork)
            elif fork.at >= len(old) - end:
                at = fork.at + moved
                # The turns between it and a fork before it deleted: the one before stays.
                if not kept or kept[-1].at < at:
                    kept.append(replace(fork, at=at))
        return BranchTree(new, tuple(kept))

    def leaves(self) -> list[tuple[Turn, ...]]:
        """Every whole path the tree holds, the current one first."""
        return _leaves(self.path, self.forks)


def _leaves(path: tuple[Turn, ...], forks: tuple[Fork, ...]) -> list[tuple[Turn, ...]]:
    if not forks:
        return [path]
    first, rest = forks[0], forks[1:]
    found = _leaves(path, rest)
    for branch in (*first.before, *first.after):
        found += _leaves((*path[: first.at], *branch.turns), _shifted(branch.forks, first.at))
    return found


# ---- kept on disk ------------------------------------------------------------------------------
def _turns_json(turns: tuple[Turn, ...]) -> list[Any]:
    from playground.protocol.conversation.stored import conversation_to_json

    turns_json: list[Any] = conversation_to_json(Conversation(turns))["turns"]
    return turns_json


def _forks_json(forks: tuple[Fork, ...]) -> list[dict[str, Any]]:
    return [
        {
            "at": f.at,
            "before": [_branch_json(b) for b in f.before],
            "after": [_branch_json(b) for b in f.after],
        }
        for f in forks
    ]


def _branch_json(branch: Branch) -> dict[str, Any]:
    return {"turns": _turns_json(branch.turns), "forks": _forks_json(branch.forks)}


def tree_to_json(tree: BranchTree) -> list[dict[str, Any]]:
    """The forks as plain JSON (the path is the conversation's turns, kept beside it)."""
    return _forks_json(tree.forks)


def _forks_from(value: object, length: int, depth: int) -> tuple[Fork, ...]:
    if depth > MAX_NESTING or not isinstance(value, list):
        raise ValueError("forks that are not a list")
    forks: list[Fork] = []
    for item in value:
        if not isinstance(item, dict):
            raise ValueError("a fork that is not an object")
        at = item.get("at")
        if not isinstance(at, int) or isinstance(at, bool) or not 0 <= at <= length:
            raise ValueError("a fork at no turn of its path")
        if forks and at <= forks[-1].at:
            raise ValueError("forks out of order")
        before, after = item.get("before", []), item.get("after", [])
        if not isinstance(before, list) or not isinstance(after, list):
            raise ValueError("a fork's branches are not lists")
        if not 0 < len(before) + len(after) < MAX_BRANCHES:
            raise ValueError("a fork with no branch or too many")
        forks.append(
            Fork(
                at,
                tuple(_branch_from(b, depth) for b in before),
                tuple(_branch_from(b, depth) for b in after),
            )
        )
    return tuple(forks)


def _branch_from(value: object, depth: int) -> Branch:
    from playground.protocol.conversation.stored import conversation_from_json

    if not isinstance(value, dict):
        raise ValueError("a branch that is not an object")
    turns = conversation_from_json({"system": None, "turns": value.get("turns")}).turns
    forks = _forks_from(value.get("forks", []), len(turns), depth + 1)
    if forks and forks[0].at == 0:
        raise ValueError("a branch forking at its own first turn")
    return Branch(turns, forks)


def tree_from_json(value: object, turns: Sequence[Turn]) -> BranchTree:
    """The forks kept for the path ``turns``, read back; anything damaged or of the wrong shape
    (a file is anyone's to edit) leaves the path without forks."""
    path = tuple(turns)
    if value is None:
        return BranchTree(path)
    try:
        return BranchTree(path, _forks_from(value, len(path), 0))
    except (ValueError, TypeError):
        return BranchTree(path)
