"""Conversations survive each route's wire shape: to the wire and back unchanged (Hypothesis)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.conversation import (
    Conversation,
    Image,
    Part,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
    conversation_keys,
    from_chat,
    from_messages,
    from_responses,
    parse_body,
    to_chat,
    to_messages,
    to_responses,
)
from playground.protocol.conversation.model import ROLES, Role

texts = st.text(max_size=12)
ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=10)
mimes = st.sampled_from(["image/png", "image/jpeg", "image/webp", "image/gif"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)


def images(details: list[str | None]) -> st.SearchStrategy[Image]:
    inline = st.builds(Image, mimes, st.binary(max_size=40), st.none(), st.sampled_from(details))
    linked = st.builds(
        Image,
        st.just(""),
        st.none(),
        ids.map(lambda s: f"https://example.com/{s}.png"),
        st.sampled_from(details),
    )
    return inline | linked


def user_parts(details: list[str | None]) -> st.SearchStrategy[tuple[Part, ...]]:
    part: st.SearchStrategy[Part] = st.builds(Text, texts) | images(details)
    return st.lists(part, min_size=1, max_size=3).map(tuple)


calls = st.builds(ToolCall, ids, ids, texts)
reasoning_items = st.builds(
    lambda i, s, e: ReasoningItem(
        {"type": "reasoning", "id": f"rs_{i}", "summary": [{"type": "summary_text", "text": s}]}
        | ({"encrypted_content": e} if e else {})
    ),
    ids,
    texts,
    st.none() | ids,
)


@st.composite
def chat_conversations(draw: st.DrawFn, reasoning: bool = False) -> Conversation:
    system = draw(st.none() | texts)
    turns: list[Turn] = []
    for _ in range(draw(st.integers(0, 6))):
        role: Role = draw(st.sampled_from(ROLES))
        if role in ("system", "developer"):
            if system is None and not turns and role == "system":
                role = "developer"  # a leading system message is the system text itself
            turns.append(Turn(role, (Text(draw(texts)),)))
        elif role == "user":
            turns.append(Turn("user", draw(user_parts([None, "low", "high"]))))
        elif role == "assistant":
            parts: list[Part] = []
            if reasoning and draw(st.booleans()):
                parts.append(Thinking(draw(st.text(min_size=1, max_size=12))))
            said = [Text(t) for t in draw(st.lists(texts, max_size=2))]
            parts += said + draw(st.lists(calls, min_size=0 if said else 1, max_size=2))
            turns.append(Turn("assistant", tuple(parts)))
        else:
            results = draw(st.lists(st.builds(ToolResult, ids, texts), min_size=1, max_size=3))
            turns.append(Turn("tool", tuple(results)))
    # Adjacent tool messages are one tool turn on chat: such threads are not canonical.
    kept = [t for i, t in enumerate(turns) if not (i and t.role == turns[i - 1].role == "tool")]
    return Conversation(tuple(kept), system)


@st.composite
def responses_conversations(draw: st.DrawFn) -> Conversation:
    system = draw(st.none() | texts)
    turns: list[Turn] = []
    for _ in range(draw(st.integers(0, 6))):
        role: Role = draw(st.sampled_from(ROLES))
        if role in ("system", "developer", "user"):
            turns.append(Turn(role, draw(user_parts([None, "low", "high"]))))
        elif role == "assistant":
            part: st.SearchStrategy[Part] = (
                st.builds(Text, texts)
                | reasoning_items
                | st.builds(ToolCall, ids, ids, texts, st.none() | ids.map("fc_".__add__))
            )
            turns.append(Turn("assistant", tuple(draw(st.lists(part, min_size=1, max_size=4)))))
        else:
            results = draw(st.lists(st.builds(ToolResult, ids, texts), min_size=1, max_size=3))
            turns.append(Turn("tool", tuple(results)))
    kept = [
        t
        for i, t in enumerate(turns)
        if not (i and t.role == turns[i - 1].role and t.role in ("assistant", "tool"))
    ]
    return Conversation(tuple(kept), system)


@st.composite
def messages_conversations(draw: st.DrawFn) -> Conversation:
    system = draw(st.none() | texts)
    turns: list[Turn] = []
    for _ in range(draw(st.integers(0, 6))):
        role = draw(st.sampled_from(["user", "assistant", "tool"]))
        if role == "user":
            turns.append(Turn("user", draw(user_parts([None]))))
        elif role == "assistant":
            args = st.dictionaries(texts, json_values, max_size=3).map(
                lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))
            )
            part: st.SearchStrategy[Part] = (
                st.builds(Text, texts)
                | st.builds(Thinking, texts, st.none() | ids)
                | st.builds(RedactedThinking, ids)
                | st.builds(ToolCall, ids, ids, args)
            )
            turns.append(Turn("assistant", tuple(draw(st.lists(part, min_size=1, max_size=4)))))
        else:
            results = st.builds(ToolResult, ids, texts, st.booleans())
            turns.append(Turn("tool", tuple(draw(st.lists(results, min_size=1, max_size=3)))))
    kept = [t for i, t in enumerate(turns) if not (i and t.role == turns[i - 1].role == "tool")]
    return Conversation(tuple(kept), system)


def _through_json(value: Any) -> Any:
    """What the body is after it went over the wire as JSON text and was read again."""
    return json.loads(json.dumps(value))


@settings(max_examples=150, deadline=None)
@given(chat_conversations())
def test_chat_round_trip(conversation: Conversation) -> None:
    assert from_chat(_through_json(to_chat(conversation))) == conversation


@settings(max_examples=150, deadline=None)
@given(chat_conversations(reasoning=True))
def test_chat_round_trip_with_reasoning_sent_back(conversation: Conversation) -> None:
    assert from_chat(to_chat(conversation, reasoning=True)) == conversation


@settings(max_examples=150, deadline=None)
@given(responses_conversations())
def test_responses_round_trip_keeps_reasoning_items_unchanged(conversation: Conversation) -> None:
    wire = _through_json(to_responses(conversation))
    assert from_responses(wire["input"], wire.get("instructions")) == conversation
    sent = [i for i in wire["input"] if i.get("type") == "reasoning"]
    kept = [p.item for t in conversation.turns for p in t.parts if isinstance(p, ReasoningItem)]
    assert sent == kept


@settings(max_examples=150, deadline=None)
@given(messages_conversations())
def test_messages_round_trip_keeps_signatures(conversation: Conversation) -> None:
    wire = _through_json(to_messages(conversation))
    assert from_messages(wire["messages"], wire.get("system")) == conversation
    sent = [
        b.get("signature")
        for m in wire["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "thinking"
    ]
    kept = [p.signature for t in conversation.turns for p in t.parts if isinstance(p, Thinking)]
    assert sent == kept


anything = st.one_of(chat_conversations(True), responses_conversations(), messages_conversations())


@settings(max_examples=100, deadline=None)
@given(anything, st.sampled_from(["chat", "responses", "messages"]))
def test_any_conversation_settles_on_a_route_after_one_trip(
    conversation: Conversation, route: str
) -> None:
    # Whatever a route cannot carry is dropped once; the wire shape is then a fixed point, so
    # the JSON body view and the thread can go back and forth without drifting.
    body = {"model": "m", "stream": True} | conversation_keys(route, conversation)
    pasted = parse_body(body, route)
    again = {"model": "m", "stream": True} | conversation_keys(route, pasted.conversation)
    assert again == body
    assert pasted.params == {"model": "m", "stream": True}


def test_a_system_turn_between_results_and_the_next_user_turn_settles_on_messages() -> None:
    # Found by the property above: the system turn goes to `system`, and the user turn after it
    # still joins the results' message, so the body is a fixed point at once.
    conversation = Conversation(
        (
            Turn("tool", (ToolResult("call_1", "18 °C", False),)),
            Turn("system", (Text("Be brief."),)),
            Turn("user", (Text("And tomorrow?"),)),
        ),
        None,
    )
    body = {"model": "m", "stream": True} | conversation_keys("messages", conversation)
    assert body["system"] == "Be brief."
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_1", "content": "18 °C"},
                {"type": "text", "text": "And tomorrow?"},
            ],
        }
    ]
    pasted = parse_body(body, "messages")
    assert {"model": "m", "stream": True} | conversation_keys(
        "messages", pasted.conversation
    ) == body


def test_responses_keeps_an_assistant_text_run_whole_across_what_it_cannot_carry() -> None:
    # Found by the property above: a thinking block between two texts (not carried on responses)
    # and two assistant turns in a row are each one message item, the shape read back.
    split = Turn("assistant", (Text("a"), RedactedThinking("0"), Text("b")))
    twice = (Turn("assistant", (Text("a"),)), Turn("assistant", (Text("b"),)))
    for turns in ((split,), twice):
        body = {"model": "m"} | conversation_keys("responses", Conversation(turns, None))
        assert body["input"] == [
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "a"},
                    {"type": "output_text", "text": "b"},
                ],
            }
        ]
        pasted = parse_body(body, "responses")
        assert {"model": "m"} | conversation_keys("responses", pasted.conversation) == body
