"""The Anthropic Messages route: path, its six event types, ``message_stop``, its body."""

from __future__ import annotations

import copy
from typing import Any

from playground.protocol.params import (
    ANTHROPIC_DEFAULT_MAX_TOKENS,
    RequestParams,
    chat_tool_from_anthropic,
    conversation,
    function_choice,
    put,
    take_turns,
    to_anthropic_tool,
    to_anthropic_tool_choice,
)
from playground.protocol.routes.route import Route, fits, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    turns = [t for t in conversation(p) if t.get("role") != "system"]
    system_parts = [str(t.get("content", "")) for t in conversation(p) if t.get("role") == "system"]
    system = "\n\n".join([*([p.system] if p.system else []), *system_parts]) or None
    max_tokens = p.max_tokens if p.max_tokens is not None else ANTHROPIC_DEFAULT_MAX_TOKENS
    if p.thinking_budget is not None and max_tokens <= p.thinking_budget:
        # Anthropic: max_tokens must be greater than thinking.budget_tokens.
        max_tokens = p.thinking_budget + ANTHROPIC_DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": p.model, "max_tokens": max_tokens}
    put(body, "system", system)
    body["messages"] = turns
    body["stream"] = p.stream
    put(body, "temperature", p.temperature)
    put(body, "top_p", p.top_p)
    put(body, "stop_sequences", list(p.stop) if p.stop is not None else None)
    if p.thinking_budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": p.thinking_budget}
    if p.tools:
        body["tools"] = [to_anthropic_tool(t) for t in p.tools]
        if p.tool_choice is not None or p.parallel_tool_calls is not None:
            choice = to_anthropic_tool_choice(p.tool_choice or "auto")
            if p.parallel_tool_calls is not None:
                # Anthropic's switch is the other way round, on the tool choice.
                choice["disable_parallel_tool_use"] = not p.parallel_tool_calls
            body["tool_choice"] = choice
    if p.format_type == "json_schema":
        # Anthropic's structured outputs: output_config.format (the SDK's JSONOutputFormatParam,
        # type and schema only: no name, no strict).
        schema = copy.deepcopy(p.schema if p.schema is not None else {"type": "object"})
        body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    if isinstance(rest.get("system"), str):
        p.system = rest.pop("system")
    if take_turns(p, rest.get("messages")):
        rest.pop("messages")
    take(rest, p, "max_tokens")
    take(rest, p, "temperature")
    take(rest, p, "top_p")
    take(rest, p, "stop_sequences", "stop")
    config = rest.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) and set(config) == {"format"} else None
    if (
        isinstance(fmt, dict)
        and set(fmt) == {"type", "schema"}
        and fmt["type"] == "json_schema"
        and isinstance(fmt["schema"], dict)
    ):
        rest.pop("output_config")
        p.format_type, p.schema = "json_schema", copy.deepcopy(fmt["schema"])
    thinking = rest.get("thinking")
    if (
        isinstance(thinking, dict)
        and thinking.get("type") == "enabled"
        and set(thinking) == {"type", "budget_tokens"}
        and fits("thinking_budget", thinking["budget_tokens"])
    ):
        p.thinking_budget = rest.pop("thinking")["budget_tokens"]
    if isinstance(rest.get("tools"), list) and rest["tools"]:
        p.tools = [chat_tool_from_anthropic(t) for t in rest.pop("tools")]
        choice = rest.pop("tool_choice", None)
        if isinstance(choice, dict) and isinstance(choice.get("disable_parallel_tool_use"), bool):
            choice = dict(choice)
            p.parallel_tool_calls = not choice.pop("disable_parallel_tool_use")
        if isinstance(choice, dict):
            kind = choice.get("type")
            if kind == "tool" and isinstance(choice.get("name"), str):
                choice = function_choice(choice["name"])
            elif kind in ("auto", "any", "none") and len(choice) == 1:
                choice = {"any": "required"}.get(str(kind), str(kind))
        p.tool_choice = choice


# Anthropic's streaming grammar (docs/protocol.md §4): these six event types, ending with
# message_stop; a data: [DONE] is not part of it.
ROUTE = Route(
    name="messages",
    title="Messages",
    path="/messages",
    method="POST",
    sse=True,
    multipart=False,
    decoder="playground.protocol.decoders.messages:MessagesDecoder",
    build=build,
    read=read,
    terminator="message_stop",
    done="outside",
    event_names=frozenset(
        {
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        }
    ),
    conversational=True,
)
