"""The Conversation on chat completions: ``messages`` with roles, image_url parts, tool_calls.

Reasoning is not sent back on chat by default: OpenAI's chat has no field for it and rejects
unknown message fields, and DeepSeek answers 400 when ``reasoning_content`` comes back. With
``reasoning=True`` a Thinking part goes back as the assistant message's ``reasoning`` field,
the gateway's own name for it (docs/protocol.md §0; OpenRouter reads it to keep reasoning across
turns). A gateway that streamed Anthropic's ``thinking_blocks`` on chat (LiteLLM) gets them
back, signed, as ``thinking_blocks`` with ``reasoning_content``. Other signatures and Responses
reasoning items have no place on chat.
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
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
)
from playground.protocol.conversation.parts import part_from_item

__all__ = ["from_chat", "to_chat"]


def _image_url(image: Image) -> dict[str, Any]:
    url: dict[str, Any] = {"url": image.source}
    if image.detail is not None:
        url["detail"] = image.detail
    return {"type": "image_url", "image_url": url}


def _content(parts: tuple[Part, ...]) -> str | list[dict[str, Any]]:
    return text_or_parts("chat", parts, lambda t: {"type": "text", "text": t.text}, _image_url)


def _assistant(turn: Turn, reasoning: bool) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant"}
    texts = [p for p in turn.parts if isinstance(p, Text)]
    calls = turn.tool_calls
    if texts:
        msg["content"] = texts[0].text if len(texts) == 1 else _content(tuple(texts))
    else:
        # OpenAI: content "is required unless tool_calls is specified" (then null).
        msg["content"] = None if calls else ""
    thinking = [p.text for p in turn.parts if isinstance(p, Thinking)]
    blocks = _thinking_blocks(turn)
    if blocks:
        # The gateway streamed Anthropic's thinking blocks (LiteLLM): they go back as it gave
        # them, with the same text as reasoning_content, the shape LiteLLM accepts and turns
        # into the blocks that must lead an assistant turn with tool_use while thinking is on.
        msg["reasoning_content"] = "".join(thinking)
        msg["thinking_blocks"] = blocks
    elif reasoning and thinking:
        msg["reasoning"] = "".join(thinking)
    if calls:
        msg["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in calls
        ]
    return msg


def _thinking_blocks(turn: Turn) -> list[dict[str, Any]]:
    """A turn's signed thinking and redacted thinking as ``thinking_blocks``; [] when it has
    none (signatures on chat come only from a gateway's own ``thinking_blocks``)."""
    if not any(
        isinstance(p, RedactedThinking) or (isinstance(p, Thinking) and p.signature)
        for p in turn.parts
    ):
        return []
    out: list[dict[str, Any]] = []
    for part in turn.parts:
        if isinstance(part, Thinking):
            block: dict[str, Any] = {"type": "thinking", "thinking": part.text}
            if part.signature is not None:
                block["signature"] = part.signature
            out.append(block)
        elif isinstance(part, RedactedThinking):
            out.append({"type": "redacted_thinking", "data": part.data})
    return out


def to_chat(conversation: Conversation, *, reasoning: bool = False) -> list[dict[str, Any]]:
    """The ``messages`` array: the system text first, then one message a turn (a tool turn
    gives one ``role: "tool"`` message per result, in order)."""
    out: list[dict[str, Any]] = []
    if conversation.system is not None:
        out.append({"role": "system", "content": conversation.system})
    for turn in conversation.turns:
        if turn.role == "assistant":
            out.append(_assistant(turn, reasoning))
        elif turn.role == "tool":
            out += [
                {"role": "tool", "tool_call_id": r.call_id, "content": r.content}
                for r in turn.tool_results
            ]
        else:
            out.append({"role": turn.role, "content": _content(turn.parts)})
    return out


def _parts(content: Any) -> list[Part]:
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part] = []
    for part in dict_items(content):
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append(Text(part["text"]))
        elif kind == "image_url":
            image = part.get("image_url")
            url = string(image.get("url")) if isinstance(image, dict) else string(image)
            detail = string(image.get("detail")) if isinstance(image, dict) else None
            if url is not None:
                parts.append(image_from_url(url, detail))
        elif (declared := part_from_item("chat", part)) is not None:
            parts.append(declared)
    return parts


def _parsed_blocks(blocks: Any) -> list[Part]:
    parts: list[Part] = []
    for block in dict_items(blocks):
        if block.get("type") == "redacted_thinking" and string(block.get("data")):
            parts.append(RedactedThinking(str(block["data"])))
        elif block.get("type") == "thinking":
            parts.append(Thinking(str(block.get("thinking") or ""), string(block.get("signature"))))
    return parts


def from_chat(messages: Any) -> Conversation:
    """A Conversation from a ``messages`` array. A leading system message with plain text is
    the system text; consecutive tool messages are one tool turn (parallel results)."""
    items = dict_items(messages)
    system: str | None = None
    if items and items[0].get("role") == "system" and isinstance(items[0].get("content"), str):
        system = items[0]["content"]
        items = items[1:]
    turns: list[Turn] = []
    for msg in items:
        role = msg.get("role")
        if role == "tool":
            result = ToolResult(str(msg.get("tool_call_id") or ""), join_text(msg.get("content")))
            if turns and turns[-1].role == "tool":
                turns[-1] = Turn("tool", (*turns[-1].parts, result))
            else:
                turns.append(Turn("tool", (result,)))
        elif role == "assistant":
            parts: list[Part] = _parsed_blocks(msg.get("thinking_blocks"))
            thought = string(msg.get("reasoning")) or string(msg.get("reasoning_content"))
            if thought and not parts:
                parts.append(Thinking(thought))
            content = msg.get("content")
            if content is not None:
                parts += _parts(content)
            for call in dict_items(msg.get("tool_calls")):
                fn = call.get("function")
                fn = fn if isinstance(fn, dict) else {}
                parts.append(
                    ToolCall(
                        str(call.get("id") or ""),
                        str(fn.get("name") or ""),
                        string(fn.get("arguments")) or "",
                    )
                )
            turns.append(Turn("assistant", tuple(parts)))
        elif role in ("system", "developer", "user"):
            turns.append(Turn(role, tuple(_parts(msg.get("content")))))
    return Conversation(tuple(turns), system)
