"""The assistant turn a finished stream made, and the tool turn that answers its calls.

StreamState keeps the answer as one text, one reasoning text and the tool calls, which is all
chat needs. Two things it does not keep are needed to send a turn back exactly: each thinking
block's own text and signature (messages, and chat through LiteLLM, whose ``thinking_blocks``
carry Anthropic's), and each Responses reasoning item as it came (its ``id`` and
``encrypted_content``). Both are in the stream's events, so ``payloads`` (the parsed
JSON of the timeline's events, in order) rebuilds the turn from them when it is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from playground.protocol.conversation.common import dict_items, join_text, string
from playground.protocol.conversation.model import (
    Part,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
)

if TYPE_CHECKING:  # a type only: the thread's panels load this before any stream (startup time)
    from playground.protocol.state import StreamState

__all__ = ["assistant_turn", "tool_turn"]


def _from_state(state: StreamState) -> list[Part]:
    parts: list[Part] = []
    # On chat a signature goes back only in the thinking blocks it came in (_from_chat); the
    # others (OpenRouter's reasoning_details) have no place in a chat message.
    signatures = [
        v for kind, v in state.signatures if kind == "signature" and state.route != "chat"
    ]
    if state.reasoning and state.route != "responses":
        # One thinking block: the state joins the blocks' text (see the module docstring).
        parts.append(Thinking(state.reasoning, "".join(signatures) or None))
    if state.route == "messages":
        parts += [RedactedThinking(v) for kind, v in state.signatures if kind == "redacted"]
    if state.text:
        parts.append(Text(state.text))
    for call in state.tool_calls:
        if call.server or call.choice != 0:
            continue
        parts.append(ToolCall(call.id or "", call.name or "", call.arguments.value))
    return parts


def _from_messages(payloads: Iterable[Any]) -> list[Part]:
    blocks: dict[int, dict[str, Any]] = {}
    for p in payloads:
        if not isinstance(p, dict) or not isinstance(p.get("index"), int):
            continue
        index = p["index"]
        if p.get("type") == "content_block_start" and isinstance(p.get("content_block"), dict):
            block = dict(p["content_block"])
            if block.get("type") == "tool_use":
                block["partial"] = ""
            blocks[index] = block
        elif p.get("type") == "content_block_delta" and index in blocks:
            block, delta = blocks[index], p.get("delta")
            if not isinstance(delta, dict):
                continue
            kind = delta.get("type")
            if kind == "text_delta":
                block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
            elif kind == "thinking_delta":
                block["thinking"] = str(block.get("thinking") or "") + str(
                    delta.get("thinking") or ""
                )
            elif kind == "signature_delta":
                block["signature"] = str(block.get("signature") or "") + str(
                    delta.get("signature") or ""
                )
            elif kind == "input_json_delta":
                block["partial"] = str(block.get("partial") or "") + str(
                    delta.get("partial_json") or ""
                )
    parts: list[Part] = []
    for _, block in sorted(blocks.items()):
        kind = block.get("type")
        if kind == "text":
            parts.append(Text(str(block.get("text") or "")))
        elif kind == "thinking":
            parts.append(
                Thinking(str(block.get("thinking") or ""), string(block.get("signature")) or None)
            )
        elif kind == "redacted_thinking":
            parts.append(RedactedThinking(str(block.get("data") or "")))
        elif kind == "tool_use":
            args = str(block.get("partial") or "") or "{}"
            parts.append(ToolCall(str(block.get("id") or ""), str(block.get("name") or ""), args))
    return parts


def _from_responses(payloads: Iterable[Any]) -> list[Part]:
    done: list[dict[str, Any]] = []
    final: list[dict[str, Any]] | None = None
    for p in payloads:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "response.output_item.done" and isinstance(p.get("item"), dict):
            done.append(p["item"])
        elif (
            p.get("type") in ("response.completed", "response.incomplete")
            and isinstance(p.get("response"), dict)
            and isinstance(p["response"].get("output"), list)
        ):
            final = dict_items(p["response"]["output"])
    parts: list[Part] = []
    for item in final if final else done:
        kind = item.get("type")
        if kind == "reasoning":
            parts.append(ReasoningItem(item))
        elif kind == "message":
            text = join_text(
                [c for c in dict_items(item.get("content")) if c.get("type") == "output_text"]
            )
            parts.append(Text(text))
        elif kind == "function_call":
            parts.append(
                ToolCall(
                    str(item.get("call_id") or ""),
                    str(item.get("name") or ""),
                    string(item.get("arguments")) or "",
                    string(item.get("id")),
                )
            )
    return parts


def _chat_thinking(payloads: Iterable[Any]) -> list[Part]:
    """Choice 0's ``delta.thinking_blocks`` (LiteLLM in front of Anthropic) joined into the
    blocks they are pieces of: a block's text runs until its signature, which closes it."""
    parts: list[Part] = []
    text: list[str] = []
    open_block = False
    for p in payloads:
        choices = p.get("choices") if isinstance(p, dict) else None
        first = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(first, dict) or first.get("index", 0) != 0:
            continue
        delta = first.get("delta")
        if not isinstance(delta, dict):
            continue
        for block in dict_items(delta.get("thinking_blocks")):
            if block.get("type") == "redacted_thinking":
                data = string(block.get("data"))
                if data:
                    parts.append(RedactedThinking(data))
                continue
            piece = string(block.get("thinking"))
            if piece:
                text.append(piece)
                open_block = True
            signature = string(block.get("signature"))
            if signature:
                parts.append(Thinking("".join(text), signature))
                text, open_block = [], False
    if open_block:  # thinking that never got its signature: kept, without one
        parts.append(Thinking("".join(text)))
    return parts


def _from_chat(state: StreamState, payloads: Iterable[Any]) -> list[Part]:
    """The turn with the thinking blocks the gateway streamed, in that shape; [] if none."""
    thinking = _chat_thinking(payloads)
    if not thinking:
        return []
    rest = [p for p in _from_state(state) if not isinstance(p, Thinking)]
    return thinking + rest


def assistant_turn(state: StreamState, payloads: Iterable[Any] | None = None) -> Turn:
    """The streamed answer as the next assistant turn (choice 0 on chat).

    ``payloads``: the parsed event JSON in arrival order (``StreamDecoder.payload(i)`` for each
    timeline item). On messages and responses they give the blocks and items exactly; without
    them the turn is rebuilt from the state alone: one thinking block on messages, and no
    reasoning items on responses (the state keeps only their encrypted content, not the item).
    """
    parts: list[Part] = []
    if payloads is not None and state.route == "messages":
        parts = _from_messages(payloads)
    elif payloads is not None and state.route == "responses":
        parts = _from_responses(payloads)
    elif payloads is not None and state.route == "chat" and state.signatures:
        # Only an answer with signed or redacted thinking can hold thinking_blocks: a long chat
        # answer's payloads are not parsed again for nothing.
        parts = _from_chat(state, payloads)
    if not parts:
        parts = _from_state(state)
    return Turn("assistant", tuple(parts))


def tool_turn(results: Sequence[ToolResult] | Sequence[tuple[str, str]]) -> Turn:
    """One tool turn answering calls together (parallel calls: one result each)."""
    parts = tuple(r if isinstance(r, ToolResult) else ToolResult(r[0], r[1]) for r in results)
    return Turn("tool", parts)
