"""The gateways' counting endpoints: which route has one, the body it takes, its answer read.

OpenAI's ``POST /v1/responses/input_tokens`` answers ``{"object": "response.input_tokens",
"input_tokens": N}``; Anthropic's ``POST /v1/messages/count_tokens`` answers ``{"input_tokens":
N}``. Each takes the request's prompt fields only (a count takes no ``stream`` or
``max_tokens``). Chat has none: its context is the offline estimate (tokens.py).
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["COUNTING_PATHS", "counted_tokens", "counting_body"]

COUNTING_PATHS: Final = {
    "responses": "/responses/input_tokens",
    "messages": "/messages/count_tokens",
}
_KEPT: Final = {
    "responses": (
        "model",
        "input",
        "instructions",
        "tools",
        "tool_choice",
        "reasoning",
        "text",
        "previous_response_id",
        "conversation",
        "parallel_tool_calls",
        "truncation",
    ),
    "messages": ("model", "messages", "system", "tools", "tool_choice", "thinking"),
}


def counting_body(route: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The body to send to ``route``'s counting endpoint; None when it has none."""
    kept = _KEPT.get(route)
    if kept is None:
        return None
    return {k: body[k] for k in kept if k in body}


def counted_tokens(payload: object) -> int | None:
    """The count in a counting endpoint's answer (either vendor's shape), else None."""
    if not isinstance(payload, dict):
        return None
    value = payload.get("input_tokens")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
