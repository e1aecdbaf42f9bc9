"""Editing a Conversation: a turn's text replaced in place, turns inserted, replaced, deleted,
the thread cut for Regenerate, and a thread carried to another route."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from playground.protocol.conversation import (
    Conversation,
    Image,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
    with_text,
)

CALL = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
THOUGHT = Thinking("Let me look.", signature="sig==")


def test_with_text_keeps_thinking_its_signature_and_the_calls() -> None:
    turn = Turn("assistant", (THOUGHT, Text("Old "), Text("answer"), CALL))
    assert with_text(turn, "New answer") == Turn("assistant", (THOUGHT, Text("New answer"), CALL))


def test_with_text_puts_text_after_the_thinking_of_a_turn_that_had_none() -> None:
    turn = Turn("assistant", (THOUGHT, RedactedThinking("x"), CALL))
    assert with_text(turn, "Hm") == Turn(
        "assistant", (THOUGHT, RedactedThinking("x"), Text("Hm"), CALL)
    )
    assert with_text(Turn("user"), "Hi") == Turn.of("user", "Hi")


def test_with_text_keeps_images_where_they_were_and_empty_text_removes_the_text() -> None:
    image = Image("image/png", b"\x89PNG")
    turn = Turn("user", (Text("look"), image, Text(" here")))
    assert with_text(turn, "see") == Turn("user", (Text("see"), image))
    assert with_text(turn, "") == Turn("user", (image,))


def test_insert_replace_delete_and_truncate() -> None:
    a, b, c = Turn.of("user", "a"), Turn.of("assistant", "b"), Turn.of("user", "c")
    conv = Conversation((a, b), system="s")
    assert conv.insert(0, c) == Conversation((c, a, b), "s")
    assert conv.insert(1, c) == Conversation((a, c, b), "s")
    assert conv.insert(2, c) == Conversation((a, b, c), "s")
    assert conv.replace_turn(1, c) == Conversation((a, c), "s")
    assert conv.delete(0) == Conversation((b,), "s")
    assert conv.truncate(1) == Conversation((a,), "s")
    assert conv.truncate(0) == Conversation((), "s")
    bad_edits: tuple[Callable[[], Conversation], ...] = (
        lambda: conv.insert(3, c),
        lambda: conv.replace_turn(2, c),
        lambda: conv.delete(-1),
    )
    for bad in bad_edits:
        with pytest.raises(IndexError):
            bad()


def test_a_carried_thread_loses_only_what_its_vendor_alone_takes_back() -> None:
    reasoning = ReasoningItem({"type": "reasoning", "id": "rs_1", "summary": []})
    conv = Conversation(
        (
            Turn.of("user", "Weather?"),
            Turn("assistant", (THOUGHT, reasoning, CALL)),
            Turn("tool", (ToolResult("call_1", "18C"),)),
            Turn("assistant", (RedactedThinking("zz"),)),  # nothing else: the turn goes
            Turn("assistant", (Thinking("hm"), Text("It is 18C."))),
        ),
        system="Be brief.",
    )
    assert conv.carried() == Conversation(
        (
            Turn.of("user", "Weather?"),
            Turn("assistant", (CALL,)),
            Turn("tool", (ToolResult("call_1", "18C"),)),
            Turn.of("assistant", "It is 18C."),
        ),
        system="Be brief.",
    )


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_with_earlier_puts_the_turns_before_the_bodys_own(route: str) -> None:
    from playground.protocol.conversation import parse_body
    from playground.protocol.conversation.bodies import with_earlier
    from playground.protocol.requests import RequestParams, build_body

    body = build_body(route, RequestParams(model="m", prompt="And Rome?"))
    earlier = Conversation(
        (Turn.of("user", "Paris?"), Turn.of("assistant", "A city.")), system="Be brief."
    )
    merged = with_earlier(body, route, earlier)
    pasted = parse_body(merged, route)
    assert pasted.conversation == Conversation(
        (*earlier.turns, Turn.of("user", "And Rome?")), system="Be brief."
    )
    assert pasted.params == parse_body(body, route).params
    assert with_earlier(body, route, None) is body
    assert with_earlier(body, route, Conversation()) is body
