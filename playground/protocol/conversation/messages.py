"""The Conversation on messages: ``system`` and ``messages`` of content blocks (Anthropic).

Thinking blocks go back with their ``signature`` and ``redacted_thinking`` blocks with their
``data``, unchanged (Anthropic: "you must pass thinking blocks back to the API" in tool use,
and the signature verifies them). A tool turn is a user message of ``tool_result`` blocks; a
user turn right after it joins that message, after the results (Anthropic: tool_result blocks
come first in the user content, text after them). Messages has no system role in the thread:
system and developer turns join the top-level ``system`` text.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from playground.protocol import safe_json
from playground.protocol.conversation.common import compact_json, dict_items, join_text, string
from playground.protocol.conversation.model import (
    Conversation,
    Image,
    Part,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
)
from playground.protocol.conversation.parts import content_item, part_from_item, travels_on

__all__ = ["breakpoint_of", "cache_control", "from_messages", "to_messages"]


def cache_control(breakpoint: str) -> dict[str, Any]:
    """The ``cache_control`` marker of a breakpoint ("5m", the default lifetime, or "1h")."""
    marker: dict[str, Any] = {"type": "ephemeral"}
    if breakpoint == "1h":
        marker["ttl"] = "1h"
    return marker


def breakpoint_of(block: Any) -> str | None:
    """The breakpoint a content block (or a tool, a system block) carries: "5m", "1h" or None."""
    marker = block.get("cache_control") if isinstance(block, dict) else None
    if not isinstance(marker, dict) or marker.get("type") != "ephemeral":
        return None
    return "1h" if marker.get("ttl") == "1h" else "5m"


def _marked(content: str | list[dict[str, Any]], breakpoint: str | None) -> Any:
    """``content`` with the breakpoint on its last block (a string becomes one text block:
    only a block carries ``cache_control``)."""
    if breakpoint is None:
        return content
    blocks: list[dict[str, Any]] = (
        [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
    )
    if blocks:
        blocks[-1] = {**blocks[-1], "cache_control": cache_control(breakpoint)}
    return blocks


def _image(image: Image) -> dict[str, Any]:
    if image.data is not None:
        source: dict[str, Any] = {
            "type": "base64",
            "media_type": image.mime,
            "data": base64.b64encode(image.data).decode("ascii"),
        }
    else:
        source = {"type": "url", "url": image.url or ""}
    return {"type": "image", "source": source}


def _input(arguments: str) -> Any:
    """``tool_use.input`` must be an object: the arguments parsed, or {} when they are not one."""
    try:
        value = safe_json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _blocks(parts: tuple[Part, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, Text):
            out.append({"type": "text", "text": part.text})
        elif isinstance(part, Image):
            out.append(_image(part))
        elif isinstance(part, Thinking):
            block: dict[str, Any] = {"type": "thinking", "thinking": part.text}
            if part.signature is not None:
                block["signature"] = part.signature
            out.append(block)
        elif isinstance(part, RedactedThinking):
            out.append({"type": "redacted_thinking", "data": part.data})
        elif isinstance(part, ToolCall):
            out.append(
                {
                    "type": "tool_use",
                    "id": part.id,
                    "name": part.name,
                    "input": _input(part.arguments),
                }
            )
        elif isinstance(part, ToolResult):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": part.call_id,
                "content": part.content,
            }
            if part.is_error:
                result["is_error"] = True
            out.append(result)
        elif (item := content_item("messages", part)) is not None:
            out.append(item)
    return out


# What each role's content may hold on messages (a tool result only in a tool turn's message).
_ALLOWED: dict[str, tuple[type, ...]] = {
    "user": (Text, Image),
    "assistant": (Thinking, RedactedThinking, Text, ToolCall),
}


def _content(role: str, parts: tuple[Part, ...]) -> str | list[dict[str, Any]]:
    allowed = _ALLOWED[role]
    blocks = _blocks(tuple(p for p in parts if isinstance(p, allowed) or travels_on("messages", p)))
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        return str(blocks[0]["text"])
    return blocks


def to_messages(conversation: Conversation) -> dict[str, Any]:
    """``system`` (when there is one) and ``messages``."""
    systems = [conversation.system] if conversation.system is not None else []
    messages: list[dict[str, Any]] = []
    turns = conversation.turns
    i = 0
    while i < len(turns):
        turn = turns[i]
        i += 1
        if turn.role in ("system", "developer"):
            systems.append(turn.text)
        elif turn.role == "tool":
            blocks = _blocks(turn.tool_results)
            # A system turn between the results and the next user turn goes to ``system`` (as any
            # does): the user turn still joins the results' message, so the wire shape is the same
            # after a round trip (Messages reads consecutive user messages as one).
            while i < len(turns) and turns[i].role in ("system", "developer"):
                systems.append(turns[i].text)
                i += 1
            mark = turn.cache_breakpoint
            blocks = _marked(blocks, mark) if mark else blocks
            if i < len(turns) and turns[i].role == "user":
                joined = turns[i]
                more = _blocks(tuple(p for p in joined.parts if isinstance(p, Text | Image)))
                blocks += _marked(more, joined.cache_breakpoint) if more else []
                i += 1
            messages.append({"role": "user", "content": blocks})
        else:
            content = _content(turn.role, turn.parts)
            messages.append({"role": turn.role, "content": _marked(content, turn.cache_breakpoint)})
    out: dict[str, Any] = {}
    if systems:
        out["system"] = "\n\n".join(systems)
    out["messages"] = messages
    return out


def _parts(content: Any) -> tuple[list[Part], list[Part], list[str | None]]:
    """(tool results, the other parts, the breakpoint each of the two ends with) of a message's
    content."""
    if isinstance(content, str):
        return [], [Text(content)], [None, None]
    results: list[Part] = []
    parts: list[Part] = []
    marks: list[str | None] = [None, None]
    for block in dict_items(content):
        kind = block.get("type")
        mark = breakpoint_of(block)
        if mark is not None:
            marks[0 if kind == "tool_result" else 1] = mark
        if kind == "text" and isinstance(block.get("text"), str):
            parts.append(Text(block["text"]))
        elif kind == "image":
            source = block.get("source")
            source = source if isinstance(source, dict) else {}
            if source.get("type") == "base64":
                try:
                    data = base64.b64decode(str(source.get("data") or ""), validate=True)
                except (binascii.Error, ValueError):
                    continue
                parts.append(Image(str(source.get("media_type") or ""), data))
            elif source.get("type") == "url":
                parts.append(Image("", None, str(source.get("url") or "")))
        elif kind == "thinking":
            parts.append(Thinking(str(block.get("thinking") or ""), string(block.get("signature"))))
        elif kind == "redacted_thinking":
            parts.append(RedactedThinking(str(block.get("data") or "")))
        elif kind == "tool_use":
            args = compact_json(block.get("input", {}))
            parts.append(ToolCall(str(block.get("id") or ""), str(block.get("name") or ""), args))
        elif kind == "tool_result":
            results.append(
                ToolResult(
                    str(block.get("tool_use_id") or ""),
                    join_text(block.get("content", "")),
                    block.get("is_error") is True,
                )
            )
        elif (declared := part_from_item("messages", block)) is not None:
            parts.append(declared)
    return results, parts, marks


def from_messages(messages: Any, system: Any = None) -> Conversation:
    """A Conversation from ``messages`` and ``system`` (a string or a list of text blocks)."""
    text = system if isinstance(system, str) else (join_text(system) if system else None)
    turns: list[Turn] = []
    for msg in dict_items(messages):
        role = msg.get("role")
        if role not in ("user", "assistant"):
            continue
        results, parts, marks = _parts(msg.get("content"))
        if results:
            turns.append(Turn("tool", tuple(results), marks[0]))
        if parts or not results:
            turns.append(Turn(role, tuple(parts), marks[1]))
    return Conversation(tuple(turns), text)
