"""`playground conversations list [--json]`: the kept conversations, newest first; a damaged
file is said on stderr and set aside, the rest listed; a wrong command is one line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from playground.__main__ import main
from playground.protocol.conversation.model import Conversation, Turn
from playground.runs.conversations import ConversationStore


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ConversationStore:
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(tmp_path))
    return ConversationStore()


def test_list_as_json_and_as_a_table(
    store: ConversationStore, capsys: pytest.CaptureFixture[str]
) -> None:
    older = store.new("chat", Conversation((Turn.of("user", "Older talk"),)), model="m-a")
    store.save(older)
    newer = store.new(
        "messages",
        Conversation((Turn.of("user", "Newer talk"), Turn.of("assistant", "ok"))),
        model="m-b",
    )
    store.save(newer)
    assert main(["conversations", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["title"], r["route"], r["model"], r["turns"]) for r in rows] == [
        (newer.id, "Newer talk", "messages", "m-b", 2),
        (older.id, "Older talk", "chat", "m-a", 1),
    ]
    assert main(["conversations", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["ID", "UPDATED", "ROUTE", "MODEL", "TURNS"]
    assert lines[1].startswith(newer.id) and lines[1].endswith("Newer talk")
    assert main(["conversations", "list", "--json", "--search", "older"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [older.id]


def test_a_damaged_file_is_said_and_the_rest_listed(
    store: ConversationStore, capsys: pytest.CaptureFixture[str]
) -> None:
    good = store.new("chat", Conversation((Turn.of("user", "fine"),)))
    store.save(good)
    (store.root / "broken.conversation.json").write_text("{")
    assert main(["conversations", "list", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [r["id"] for r in json.loads(out)] == [good.id]
    assert "set aside as broken.conversation.json.corrupt" in err


def test_a_wrong_command_is_one_line(
    store: ConversationStore, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conversations", "drop"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("playground conversations:") and len(err.strip().splitlines()) == 1
