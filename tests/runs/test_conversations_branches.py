"""A kept conversation's branches: written under an optional "branches" key and read back
whole; a file without them, or with them damaged, opens with none."""

from __future__ import annotations

import json
from pathlib import Path

from playground.protocol.conversation.branches import BranchTree
from playground.protocol.conversation.model import Conversation, Turn
from playground.runs.conversations import ConversationStore

TURNS = (
    Turn.of("user", "q1"),
    Turn.of("assistant", "a1"),
    Turn.of("user", "q2"),
    Turn.of("assistant", "a2"),
)


def _branched() -> BranchTree:
    tree = BranchTree(TURNS).fork(1, (Turn.of("assistant", "another a1"),))
    return tree.switch(1, 0)  # the first branch current, the second kept beside it


def test_branches_are_kept_and_read_back(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    tree = _branched()
    saved = store.new("chat", Conversation(tree.path))
    saved.branches = tree
    store.save(saved)
    loaded = store.load(saved.id)
    assert loaded.conversation.turns == TURNS
    assert loaded.branches == tree and loaded.branches.shown(1) == (0, 2)
    assert loaded.branches.switch(1, 1).path == (TURNS[0], Turn.of("assistant", "another a1"))


def test_a_conversation_without_branches_has_no_key_and_none_back(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("chat", Conversation(TURNS))
    store.save(saved)
    assert "branches" not in json.loads(store.path_of(saved.id).read_text("utf-8"))
    assert store.load(saved.id).branches is None


def test_damaged_branches_are_dropped_and_the_conversation_opens(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("chat", Conversation(TURNS))
    saved.branches = _branched()
    store.save(saved)
    path = store.path_of(saved.id)
    for damage in ("not forks", [{"at": 99, "before": []}], [{"at": 1, "before": [{}]}], {"x": 1}):
        data = json.loads(path.read_text("utf-8"))
        data["branches"] = damage
        path.write_text(json.dumps(data), "utf-8")
        loaded = store.load(saved.id)
        assert loaded.conversation.turns == TURNS and loaded.branches is None, damage
    assert store.messages == []  # nothing set aside
