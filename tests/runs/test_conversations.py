"""Kept conversations: saved atomically, listed newest first, loaded whole, renamed, deleted,
searched over every turn, and a damaged file set aside without turning the feature off."""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.protocol.conversation.model import (
    Conversation,
    Image,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
)
from playground.runs.conversations import (
    ConversationError,
    ConversationStore,
    KeptRun,
    title_of,
)


def _rich() -> Conversation:
    return Conversation(
        (
            Turn.of("user", "What is the weather   in\nParis?", Image("image/png", b"\x89PNG")),
            Turn(
                "assistant",
                (
                    Thinking("check the tool", signature="sig-1"),
                    RedactedThinking("opaque"),
                    ReasoningItem({"type": "reasoning", "summary": [{"text": "plan"}]}),
                    ToolCall("call_1", "get_weather", '{"city": "Paris"', item_id="fc_1"),
                ),
            ),
            # Anthropic prompt cache breakpoints: kept, so a reopened thread sends them again.
            Turn("tool", (ToolResult("call_1", '{"temp": 21}', is_error=True),), "5m"),
            Turn("assistant", (Text("It is sunny in Paris."),), cache_breakpoint="1h"),
        ),
        system="Be brief.",
    )


def test_a_conversation_round_trips_every_part(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("messages", _rich(), model="claude-x")
    saved.runs.append(KeptRun("run-1", "/data/history/runs/run-1.capture.jsonl", "complete"))
    store.save(saved)
    again = ConversationStore(tmp_path).load(saved.id)
    assert again.conversation == _rich()  # raw arguments, signatures, bytes: all as they were
    assert [t.cache_breakpoint for t in again.conversation.turns] == [None, None, "5m", "1h"]
    assert again.route == "messages" and again.model == "claude-x"
    assert again.title == "What is the weather in Paris?"
    assert again.runs == [KeptRun("run-1", "/data/history/runs/run-1.capture.jsonl", "complete")]
    assert again.created and again.updated >= again.created
    assert not list(tmp_path.glob("*.tmp"))  # written through a temporary file, renamed


def test_list_is_newest_first_with_the_headless_fields(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    first = store.new("chat", Conversation((Turn.of("user", "first"),)), model="m1")
    store.save(first)
    second = store.new(
        "responses", Conversation((Turn.of("user", "second"), Turn.of("assistant", "ok")))
    )
    store.save(second)
    rows = store.list()
    assert [r.id for r in rows] == [second.id, first.id]
    assert rows[0].as_json() == {
        "id": second.id,
        "title": "second",
        "route": "responses",
        "model": "",
        "turns": 2,
        "updated": rows[0].updated,
    }
    first.conversation = first.conversation.add(Turn.of("assistant", "answer"))
    store.save(first)  # saved as it changes: now the newest
    rows = store.list()
    assert [r.id for r in rows] == [first.id, second.id] and rows[0].turns == 2


def test_search_covers_every_turn_and_the_title(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    weather = store.new("messages", _rich())
    store.save(weather)
    other = store.new("chat", Conversation((Turn.of("user", "Tell me a joke"),)))
    store.save(other)
    assert [r.id for r in store.list("SUNNY")] == [weather.id]  # an answer's text
    assert [r.id for r in store.list("get_weather")] == [weather.id]  # a tool call
    assert [r.id for r in store.list("temp 21")] == [weather.id]  # a result, every word
    assert [r.id for r in store.list("joke")] == [other.id]
    assert store.list("nowhere") == []


def test_rename_keeps_the_title_until_cleared(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("chat", Conversation((Turn.of("user", "first prompt"),)))
    store.save(saved)
    store.rename(saved.id, "  My   weather talk ")
    saved = store.load(saved.id)
    assert saved.title == "My weather talk"
    saved.conversation = Conversation((Turn.of("user", "edited prompt"),))
    store.save(saved)
    assert store.load(saved.id).title == "My weather talk"
    store.rename(saved.id, "")
    assert store.load(saved.id).title == "edited prompt"
    assert [r.title for r in store.list("weather")] == []


def test_delete_forgets_it(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("chat", Conversation((Turn.of("user", "x"),)))
    store.save(saved)
    store.delete(saved.id)
    assert store.list() == []
    with pytest.raises(ConversationError, match="no conversation"):
        store.load(saved.id)


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"format": "playground-conversation/1", "id": 5}',
        b'{"format": "playground-conversation/1", "id": "x", "route": "chat", "conversation": '
        b'{"turns": [{"role": "user", "parts": [{"type": "image", "mime": "a", "data": "@@"}]}]}}',
        b"[" * 5000 + b"]" * 5000,
        b"\xff\xfe",
    ],
)
def test_a_damaged_file_is_set_aside_and_the_rest_stay_listed(
    tmp_path: Path, content: bytes
) -> None:
    store = ConversationStore(tmp_path)
    good = store.new("chat", Conversation((Turn.of("user", "kept"),)))
    store.save(good)
    (tmp_path / "20260101T000000000000-bad.conversation.json").write_bytes(content)
    rows = store.list()
    assert [r.id for r in rows] == [good.id]
    assert (tmp_path / "20260101T000000000000-bad.conversation.json.corrupt").exists()
    assert len(store.messages) == 1 and "set aside" in store.messages[0]
    store.save(store.new("chat", Conversation((Turn.of("user", "still saving"),))))
    assert len(store.list()) == 2


def test_a_damaged_file_opened_by_id_is_one_sentence(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    (tmp_path / "abc.conversation.json").write_text('{"format": "other"}')
    with pytest.raises(ConversationError, match="cannot be opened"):
        store.load("abc")
    assert (tmp_path / "abc.conversation.json.corrupt").exists()


def test_an_id_is_never_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConversationError, match="not a conversation id"):
        ConversationStore(tmp_path).load("../../etc/passwd")


def test_a_file_where_the_folder_belongs_is_set_aside(tmp_path: Path) -> None:
    root = tmp_path / "conversations"
    root.write_text("not a folder")
    store = ConversationStore(root)
    assert store.messages and (tmp_path / "conversations.corrupt").exists()
    store.save(store.new("chat", Conversation((Turn.of("user", "x"),))))
    assert len(store.list()) == 1


def test_title_is_the_first_user_prompt() -> None:
    assert title_of(Conversation()) == "Untitled"
    long = "word " * 40
    title = title_of(Conversation((Turn.of("user", long),)))
    assert len(title) == 80 and title.endswith("…")
    assert title_of(Conversation((Turn("user", (Text("  "),)), Turn.of("user", "b")))) == "b"


def test_on_a_background_writer_reads_wait_and_failures_are_messages(tmp_path: Path) -> None:
    from playground.runs.writer import FileWriter

    writer = FileWriter(name="test-conversations")
    try:
        store = ConversationStore(tmp_path / "kept", writer=writer)
        saved = store.new("chat", Conversation((Turn.of("user", "queued"),)))
        for n in range(5):  # saved as it changes: the newest queued write wins
            saved.conversation = saved.conversation.add(Turn.of("assistant", f"answer {n}"))
            store.save(saved)
        assert store.load(saved.id).turns == 6  # the read waited for the writes
        assert [r.turns for r in store.list()] == [6]
        blocked = ConversationStore(tmp_path / "file", writer=writer)
        (tmp_path / "file").write_text("a file where the folder would be made")
        blocked.root = tmp_path / "file" / "inside"
        blocked.save(blocked.new("chat", Conversation((Turn.of("user", "lost?"),))))
        writer.flush()
        assert len(blocked.messages) == 1 and "“lost?” could not be saved" in blocked.messages[0]
    finally:
        writer.close()


def test_a_key_the_runs_were_sent_with_is_redacted_wherever_it_appears(tmp_path: Path) -> None:
    key = "sk-test-kept-0123456789"
    store = ConversationStore(tmp_path)
    saved = store.new(
        "chat",
        Conversation(
            (Turn.of("user", f"my key is {key}"), Turn.of("assistant", f"Echo: {key}!"))
        ),
    )
    store.save(saved, secrets=(key,))
    text = store.path_of(saved.id).read_text(encoding="utf-8")
    assert key not in text and text.count("[redacted]") >= 2
    kept = store.load(saved.id)
    assert kept.conversation.turns[1].text == "Echo: [redacted]!"


def test_a_cache_breakpoint_of_another_kind_is_a_damaged_file(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path)
    saved = store.new("messages", _rich())
    store.save(saved)
    path = store.path_of(saved.id)
    path.write_text(path.read_text(encoding="utf-8").replace('"1h"', '"2h"'), encoding="utf-8")
    with pytest.raises(ConversationError, match="cache breakpoint"):
        store.load(saved.id)
