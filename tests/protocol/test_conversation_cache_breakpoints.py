"""Anthropic's cache_control breakpoints on a thread's turns (messages): read from a pasted body,
written back on the turn's last content block, kept through an edit of the turn's text, and seen
by the accounting's canonical prefix where the body put them."""

from __future__ import annotations

from playground.protocol.accounting.canonical import canonical_request
from playground.protocol.conversation.messages import from_messages, to_messages
from playground.protocol.conversation.model import Conversation, ToolResult, Turn, with_text

EPHEMERAL = {"type": "ephemeral"}


def test_a_pasted_breakpoint_marks_its_turn_and_goes_back_where_it_was() -> None:
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "A", "cache_control": EPHEMERAL}]},
        {"role": "assistant", "content": "B"},
        {"role": "user", "content": [
            {"type": "text", "text": "C"},
            {"type": "text", "text": "D", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        ]},
    ]  # fmt: skip
    conversation = from_messages(messages)
    assert [t.cache_breakpoint for t in conversation.turns] == ["5m", None, "1h"]
    assert to_messages(conversation)["messages"] == messages


def test_a_breakpoint_set_on_a_plain_turn_makes_its_text_a_block() -> None:
    turns = (Turn.of("user", "Hello"), Turn("assistant", Turn.of("assistant", "Hi").parts, "5m"))
    wire = to_messages(Conversation(turns))["messages"]
    assert wire[0]["content"] == "Hello"  # no breakpoint: the short form, as before
    assert wire[1]["content"] == [{"type": "text", "text": "Hi", "cache_control": EPHEMERAL}]
    assert with_text(turns[1], "Hi again").cache_breakpoint == "5m"  # an edit keeps it


def test_a_tool_turn_and_the_user_turn_joined_to_it_keep_their_own_breakpoints() -> None:
    turns = (
        Turn("tool", (ToolResult("call_1", "18 C"),), "5m"),
        Turn.of("user", "Thanks"),
    )
    content = to_messages(Conversation(turns))["messages"][0]["content"]
    assert content[0]["cache_control"] == EPHEMERAL and "cache_control" not in content[1]
    back = from_messages([{"role": "user", "content": content}])
    assert [t.cache_breakpoint for t in back.turns] == ["5m", None]


def test_the_canonical_prefix_sees_a_breakpoint_set_from_the_thread() -> None:
    turns = (Turn.of("user", "Hello " * 40), Turn("assistant", Turn.of("assistant", "Hi").parts))
    plain = {"model": "m", **to_messages(Conversation(turns))}
    marked_turns = (turns[0], Turn("assistant", turns[1].parts, "5m"))
    marked = {"model": "m", **to_messages(Conversation(marked_turns))}
    assert not canonical_request("messages", plain).breakpoints
    assert len(canonical_request("messages", marked).breakpoints) == 1
