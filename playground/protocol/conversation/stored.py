"""The route-neutral Conversation as plain JSON and back, for conversations kept on disk.

Every part keeps what a later request must send back (a tool call's raw arguments, a thinking
block's signature, a Responses reasoning item as it came); image bytes are base64. Reading is
strict: a file is anyone's to edit, so anything of the wrong shape is a ValueError naming it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from playground.protocol.conversation.model import (
    ROLES,
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
)
from playground.protocol.conversation.parts import part_from_stored, stored_item

__all__ = ["conversation_from_json", "conversation_to_json", "searchable_text"]

_BREAKPOINTS = (None, "5m", "1h")  # Turn.cache_breakpoint's values


def _part_to_json(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Image):
        data = base64.b64encode(part.data).decode("ascii") if part.data is not None else None
        return {
            "type": "image",
            "mime": part.mime,
            "data": data,
            "url": part.url,
            "detail": part.detail,
        }
    if isinstance(part, ToolCall):
        return {
            "type": "tool_call",
            "id": part.id,
            "name": part.name,
            "arguments": part.arguments,
            "item_id": part.item_id,
        }
    if isinstance(part, ToolResult):
        return {
            "type": "tool_result",
            "call_id": part.call_id,
            "content": part.content,
            "is_error": part.is_error,
        }
    if isinstance(part, Thinking):
        return {"type": "thinking", "text": part.text, "signature": part.signature}
    if isinstance(part, RedactedThinking):
        return {"type": "redacted_thinking", "data": part.data}
    if isinstance(part, ReasoningItem):
        return {"type": "reasoning_item", "item": dict(part.item)}
    item = stored_item(part)  # a kind declared elsewhere (parts.py), by its own stored shape
    if item is None:
        raise ValueError(f"a part of kind {type(part).__name__}, which declares no stored form")
    return item


def conversation_to_json(conversation: Conversation) -> dict[str, Any]:
    """``{"system": str | None, "turns": [{"role", "parts": [{"type", ...}],
    "cache_breakpoint"?}]}``: a turn's prompt cache breakpoint ("5m" or "1h") only where it has
    one, so a conversation continued after reopening sends its ``cache_control`` as before."""
    return {
        "system": conversation.system,
        "turns": [_turn_to_json(t) for t in conversation.turns],
    }


def _turn_to_json(turn: Turn) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": turn.role, "parts": [_part_to_json(p) for p in turn.parts]}
    if turn.cache_breakpoint is not None:
        entry["cache_breakpoint"] = turn.cache_breakpoint
    return entry


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ValueError(f"a part whose {key!r} is not text")
    return value


def _text_or_none(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"a part whose {key!r} is not text")
    return value


def _part_from_json(data: object) -> Part:
    if not isinstance(data, dict):
        raise ValueError("a part that is not an object")
    kind = data.get("type")
    if kind == "text":
        return Text(_text(data, "text"))
    if kind == "image":
        encoded = _text_or_none(data, "data")
        try:
            raw = base64.b64decode(encoded, validate=True) if encoded is not None else None
        except (binascii.Error, ValueError):
            raise ValueError("an image whose data is not base64") from None
        return Image(
            _text(data, "mime"), raw, _text_or_none(data, "url"), _text_or_none(data, "detail")
        )
    if kind == "tool_call":
        return ToolCall(
            _text(data, "id"),
            _text(data, "name"),
            _text(data, "arguments"),
            _text_or_none(data, "item_id"),
        )
    if kind == "tool_result":
        is_error = data.get("is_error", False)
        if not isinstance(is_error, bool):
            raise ValueError("a tool result whose 'is_error' is not true or false")
        return ToolResult(_text(data, "call_id"), _text(data, "content"), is_error)
    if kind == "thinking":
        return Thinking(_text(data, "text"), _text_or_none(data, "signature"))
    if kind == "redacted_thinking":
        return RedactedThinking(_text(data, "data"))
    if kind == "reasoning_item":
        item = data.get("item")
        if not isinstance(item, dict):
            raise ValueError("a reasoning item that is not an object")
        return ReasoningItem(item)
    declared = part_from_stored(data)
    if declared is not None:
        return declared
    raise ValueError(f"a part of unknown type {kind!r}")


def conversation_from_json(data: object) -> Conversation:
    """The Conversation ``conversation_to_json`` wrote; ValueError for any other shape."""
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise ValueError("a conversation without a list of turns")
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise ValueError("a conversation whose system is not text")
    turns: list[Turn] = []
    for entry in data["turns"]:
        if not isinstance(entry, dict) or entry.get("role") not in ROLES:
            raise ValueError("a turn without a known role")
        parts = entry.get("parts")
        if not isinstance(parts, list):
            raise ValueError("a turn without a list of parts")
        breakpoint = entry.get("cache_breakpoint")
        if breakpoint not in _BREAKPOINTS:
            raise ValueError("a turn whose cache breakpoint is neither 5m nor 1h")
        turns.append(Turn(entry["role"], tuple(_part_from_json(p) for p in parts), breakpoint))
    return Conversation(tuple(turns), system)


def searchable_text(conversation: Conversation) -> str:
    """Every word a reader sees in the conversation (system, texts, thinking, tool calls and
    results), lower-cased, for a search over every turn."""
    texts = [conversation.system or ""]
    for turn in conversation.turns:
        texts += [turn.text, turn.reasoning]
        texts += [f"{c.name} {c.arguments}" for c in turn.tool_calls]
        texts += [r.content for r in turn.tool_results]
    return "\n".join(t for t in texts if t).casefold()
