"""Whole request bodies and the Conversation: a pasted body read into a thread plus the rest of
its parameters, a body's conversation keys written from a thread, and the headless
``--conversation`` file (chat's message shape) read for any route."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.protocol.conversation.chat import from_chat, to_chat
from playground.protocol.conversation.common import dict_items
from playground.protocol.conversation.messages import from_messages, to_messages
from playground.protocol.conversation.model import Conversation
from playground.protocol.conversation.responses import from_responses, to_responses

__all__ = [
    "CONVERSATION_ROUTES",
    "Pasted",
    "conversation_file",
    "conversation_keys",
    "guess_route",
    "parse_body",
    "with_earlier",
]

CONVERSATION_ROUTES = ("chat", "responses", "messages")
# The keys each route's conversation occupies in its body.
_KEYS = {
    "chat": ("messages",),
    "responses": ("input", "instructions"),
    "messages": ("messages", "system"),
}
# Content block types only Anthropic's messages use.
_ANTHROPIC_BLOCKS = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "image",
    "document",
}


@dataclass(frozen=True, slots=True)
class Pasted:
    """A pasted request body: which route it is for, its thread, and everything else in it."""

    route: str
    conversation: Conversation
    params: dict[str, Any] = field(default_factory=dict)


def guess_route(body: Mapping[str, Any]) -> str:
    """responses for ``input``; messages for Anthropic's shapes (top-level ``system``, content
    blocks only it has, ``max_tokens`` with ``thinking`` or ``stop_sequences``); else chat."""
    if "input" in body or "instructions" in body:
        return "responses"
    if "system" in body or "stop_sequences" in body or "thinking" in body:
        return "messages"
    for msg in dict_items(body.get("messages")):
        if any(b.get("type") in _ANTHROPIC_BLOCKS for b in dict_items(msg.get("content"))):
            return "messages"
        if msg.get("role") in ("system", "developer", "tool") or "tool_calls" in msg:
            return "chat"
    return "chat"


def parse_body(body: Mapping[str, Any], route: str | None = None) -> Pasted:
    """The thread of a chat, responses or messages body, and its other keys as ``params``."""
    route = route or guess_route(body)
    if route not in CONVERSATION_ROUTES:
        raise ValueError(f"route {route!r} has no conversation")
    rest = {k: copy.deepcopy(v) for k, v in body.items() if k not in _KEYS[route]}
    if route == "chat":
        conversation = from_chat(body.get("messages"))
    elif route == "responses":
        # previous_response_id stays a parameter: the turns it stands for are on the server.
        conversation = from_responses(body.get("input", []), body.get("instructions"))
    else:
        conversation = from_messages(body.get("messages"), body.get("system"))
    return Pasted(route, conversation, rest)


def conversation_keys(
    route: str,
    conversation: Conversation,
    *,
    reasoning: bool = False,
    previous_response_id: str | None = None,
) -> dict[str, Any]:
    """The body keys that carry ``conversation`` on ``route`` (merge them into the body)."""
    if route == "chat":
        return {"messages": to_chat(conversation, reasoning=reasoning)}
    if route == "responses":
        return to_responses(conversation, previous_response_id=previous_response_id)
    if route == "messages":
        return to_messages(conversation)
    raise ValueError(f"route {route!r} has no conversation")


def conversation_file(data: Any) -> Conversation:
    """The headless ``--conversation FILE`` object: ``{"system": str (optional), "messages":
    [...]}`` in chat completions' message shape; ValueError for anything else."""
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ValueError('a conversation file is a JSON object {"system"?, "messages": [...]}')
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise ValueError('"system" must be a string')
    conversation = from_chat(data["messages"])
    if system is None:
        return conversation
    if conversation.system is not None:  # a system message as well: both, the file's first
        system = f"{system}\n\n{conversation.system}"
    return Conversation(conversation.turns, system)


def with_earlier(body: dict[str, Any], route: str, earlier: Conversation | None) -> dict[str, Any]:
    """``body`` with ``earlier``'s turns before its own, in ``route``'s shape; its own system
    if it has one, else ``earlier``'s (Compare sends a panel's thread before its prompt)."""
    if earlier is None or not earlier.turns or route not in CONVERSATION_ROUTES:
        return body
    pasted = parse_body(body, route)
    own = pasted.conversation
    whole = Conversation(earlier.turns + own.turns, own.system or earlier.system)
    return pasted.params | conversation_keys(route, whole)
