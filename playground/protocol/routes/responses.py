"""The Responses route: path, its ``response.*`` events, its final-event terminator, its body."""

from __future__ import annotations

from typing import Any

from playground.protocol.params import (
    RequestParams,
    chat_tool_from_flat,
    conversation,
    format_of,
    function_choice,
    put,
    read_format,
    take_turns,
    to_responses_tool,
    to_responses_tool_choice,
)
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    turns = conversation(p)
    body: dict[str, Any] = {"model": p.model}
    # A lone user turn goes as a plain string, the form most examples use.
    if (
        len(turns) == 1
        and turns[0].get("role") == "user"
        and isinstance(turns[0].get("content"), str)
    ):
        body["input"] = turns[0]["content"]
    else:
        body["input"] = turns
    put(body, "instructions", p.system or None)
    body["stream"] = p.stream
    put(body, "temperature", p.temperature)
    put(body, "top_p", p.top_p)
    put(body, "max_output_tokens", p.max_tokens)
    reasoning: dict[str, Any] = {}
    put(reasoning, "effort", p.reasoning_effort or None)
    put(reasoning, "summary", p.reasoning_summary or None)  # auto | concise | detailed
    if reasoning:
        body["reasoning"] = reasoning
    if p.tools:
        body["tools"] = [to_responses_tool(t) for t in p.tools]
        if p.tool_choice is not None:
            body["tool_choice"] = to_responses_tool_choice(p.tool_choice)
        put(body, "parallel_tool_calls", p.parallel_tool_calls)
    fmt = format_of(p, nested=False)
    if fmt is not None:
        body["text"] = {"format": fmt}
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    if isinstance(rest.get("input"), str):
        p.prompt = rest.pop("input")
    elif take_turns(p, rest.get("input")):
        rest.pop("input")
    take(rest, p, "instructions", "system")
    take(rest, p, "temperature")
    take(rest, p, "top_p")
    take(rest, p, "max_output_tokens", "max_tokens")
    reasoning = rest.get("reasoning")
    if (
        isinstance(reasoning, dict)
        and reasoning
        and set(reasoning) <= {"effort", "summary"}
        and all(isinstance(v, str) and v for v in reasoning.values())
    ):
        rest.pop("reasoning")
        p.reasoning_effort = reasoning.get("effort")
        p.reasoning_summary = reasoning.get("summary")
    text = rest.get("text")
    if (
        isinstance(text, dict)
        and set(text) == {"format"}
        and read_format(p, text["format"], nested=False)
    ):
        rest.pop("text")
    if isinstance(rest.get("tools"), list) and rest["tools"]:
        p.tools = [chat_tool_from_flat(t) for t in rest.pop("tools")]
        choice = rest.pop("tool_choice", None)
        if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
            choice = function_choice(choice["name"])
        p.tool_choice = choice
        take(rest, p, "parallel_tool_calls")


# Seed "Streaming" (Responses): every event is ``response.*`` and "There is no [DONE]"; the
# stream ends with response.completed, response.incomplete or response.failed.
ROUTE = Route(
    name="responses",
    title="Responses",
    path="/responses",
    method="POST",
    sse=True,
    multipart=False,
    decoder="playground.protocol.decoders.responses:ResponsesDecoder",
    build=build,
    read=read,
    terminator="response.completed, response.incomplete or response.failed",
    done="outside",
    event_prefixes=("response.",),
    conversational=True,
)
