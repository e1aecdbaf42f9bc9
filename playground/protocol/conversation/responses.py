"""The Conversation on responses: ``instructions`` and ``input`` items, reasoning items unchanged.

An assistant turn is the run of items one response produced: ``reasoning`` items (passed back
exactly as they came: OpenAI requires the reasoning items that led to a function call to be
returned with it), ``message`` items and ``function_call`` items. A tool turn is one
``function_call_output`` item per result. Thinking with an Anthropic signature has no place
here. With ``previous_response_id`` the server keeps the earlier turns, so only the turns after
the last assistant turn are sent (OpenAI "conversation state").
"""

from __future__ import annotations

from typing import Any

from playground.protocol.conversation.common import (
    dict_items,
    image_from_url,
    join_text,
    string,
    text_or_parts,
)
from playground.protocol.conversation.model import (
    Conversation,
    Image,
    Part,
    ReasoningItem,
    Text,
    ToolCall,
    ToolResult,
    Turn,
)
from playground.protocol.conversation.parts import part_from_item

__all__ = ["from_responses", "to_responses"]


def _input_image(image: Image) -> dict[str, Any]:
    # `detail` is required by OpenAI's input_image type; "auto" is its default.
    return {"type": "input_image", "image_url": image.source, "detail": image.detail or "auto"}


def _user_content(parts: tuple[Part, ...]) -> str | list[dict[str, Any]]:
    return text_or_parts(
        "responses", parts, lambda t: {"type": "input_text", "text": t.text}, _input_image
    )


def _assistant_items(turn: Turn) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    texts: list[Text] = []

    def flush() -> None:
        if not texts:
            return
        content: str | list[dict[str, Any]] = (
            texts[0].text
            if len(texts) == 1
            else [{"type": "output_text", "text": t.text} for t in texts]
        )
        items.append({"type": "message", "role": "assistant", "content": content})
        texts.clear()

    for part in turn.parts:
        if isinstance(part, Text):
            texts.append(part)
            continue
        if not isinstance(part, ReasoningItem | ToolCall):
            continue  # not carried on responses (thinking blocks): dropped, the text run goes on
        flush()
        if isinstance(part, ReasoningItem):
            items.append(dict(part.item))
        elif isinstance(part, ToolCall):
            call: dict[str, Any] = {"type": "function_call"}
            if part.item_id is not None:
                call["id"] = part.item_id
            call |= {"call_id": part.id, "name": part.name, "arguments": part.arguments}
            items.append(call)
    flush()
    return items


def _items(turns: tuple[Turn, ...]) -> list[dict[str, Any]]:
    # Consecutive assistant (or tool) turns are one turn on this wire (``from_responses`` reads
    # adjacent output items as one turn, as a response's are), so the shape sent is the shape
    # read back.
    merged: list[Turn] = []
    for turn in turns:
        if merged and merged[-1].role == turn.role and turn.role in ("assistant", "tool"):
            merged[-1] = Turn(turn.role, (*merged[-1].parts, *turn.parts))
        else:
            merged.append(turn)
    out: list[dict[str, Any]] = []
    for turn in merged:
        if turn.role == "assistant":
            out += _assistant_items(turn)
        elif turn.role == "tool":
            out += [
                {"type": "function_call_output", "call_id": r.call_id, "output": r.content}
                for r in turn.tool_results
            ]
        else:
            out.append({"type": "message", "role": turn.role, "content": _user_content(turn.parts)})
    return out


def to_responses(
    conversation: Conversation, *, previous_response_id: str | None = None
) -> dict[str, Any]:
    """``instructions`` (the system text) and ``input``; with ``previous_response_id``, only
    the turns after the last assistant turn, and that id."""
    out: dict[str, Any] = {}
    if conversation.system is not None:
        out["instructions"] = conversation.system
    turns = conversation.turns
    if previous_response_id is not None:
        last = max((i for i, t in enumerate(turns) if t.role == "assistant"), default=-1)
        turns = turns[last + 1 :]
        out["previous_response_id"] = previous_response_id
    out["input"] = _items(turns)
    return out


def _content_parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part] = []
    for part in dict_items(content):
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            parts.append(Text(part["text"]))
        elif kind == "input_image":
            url = string(part.get("image_url"))
            detail = string(part.get("detail"))
            if url is not None:
                parts.append(image_from_url(url, None if detail == "auto" else detail))
        elif (declared := part_from_item("responses", part)) is not None:
            parts.append(declared)
    return parts


def from_responses(input_: Any, instructions: Any = None) -> Conversation:
    """A Conversation from ``input`` (a string or a list of items) and ``instructions``."""
    system = string(instructions)
    if isinstance(input_, str):
        return Conversation((Turn("user", (Text(input_),)),), system)
    turns: list[Turn] = []

    def into(role: Any, *parts: Part) -> None:
        if turns and turns[-1].role == role:
            turns[-1] = Turn(role, (*turns[-1].parts, *parts))
        else:
            turns.append(Turn(role, parts))

    for item in dict_items(input_):
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            if role == "assistant":
                into("assistant", *_content_parts(item.get("content")))
            elif role in ("system", "developer", "user"):
                turns.append(Turn(role, tuple(_content_parts(item.get("content")))))
        elif kind == "reasoning":
            into("assistant", ReasoningItem(item))
        elif kind == "function_call":
            call = ToolCall(
                str(item.get("call_id") or ""),
                str(item.get("name") or ""),
                string(item.get("arguments")) or "",
                string(item.get("id")),
            )
            into("assistant", call)
        elif kind == "function_call_output":
            output = item.get("output")
            into("tool", ToolResult(str(item.get("call_id") or ""), join_text(output)))
    return Conversation(tuple(turns), system)
