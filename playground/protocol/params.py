"""What a person sets in a route's request editor, and the pieces every route's body shares.

Pure (no httpx, no Qt). Each route's own body shape lives in ``protocol/routes/<name>.py``; this
module holds the parameters they read and the conversions between the three chat-like wire shapes
(OpenAI chat tools, Responses' flat tools, Anthropic's ``input_schema`` tools).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ANTHROPIC_DEFAULT_MAX_TOKENS",
    "SAMPLE_TOOL",
    "RequestParams",
    "chat_tool_from_anthropic",
    "chat_tool_from_flat",
    "conversation",
    "form_fields",
    "format_of",
    "function_choice",
    "put",
    "read_format",
    "take_turns",
    "to_anthropic_tool",
    "to_anthropic_tool_choice",
    "to_responses_tool",
    "to_responses_tool_choice",
]

# Anthropic requires max_tokens; its docs' examples use 1024.
ANTHROPIC_DEFAULT_MAX_TOKENS = 1024

SAMPLE_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


@dataclass
class RequestParams:
    """What people set in a route's request editor; a field left None is not sent."""

    model: str = ""
    stream: bool = True
    # chat / responses / messages
    system: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)  # [{role, content}]
    prompt: str | None = None  # a single user turn when messages is empty; images and music too
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None  # max_tokens (chat, messages), max_output_tokens (responses)
    stop: list[str] | None = None  # chat: stop; messages: stop_sequences (responses has none)
    seed: int | None = None  # chat
    frequency_penalty: float | None = None  # chat
    presence_penalty: float | None = None  # chat
    reasoning_effort: str | None = None  # chat / responses
    reasoning_summary: str | None = None  # responses: reasoning.summary
    thinking_budget: int | None = None  # messages
    tools: list[dict[str, Any]] = field(default_factory=list)  # OpenAI-style function tools
    tool_choice: str | dict[str, Any] | None = None  # "auto" | "none" | "required" | a function
    parallel_tool_calls: bool | None = None  # messages: tool_choice.disable_parallel_tool_use
    include_usage: bool | None = None  # chat: stream_options.include_usage
    n: int | None = None
    # structured output: "text" | "json_object" | "json_schema" (each route's own shape, below)
    format_type: str | None = None
    schema_name: str | None = None
    schema: dict[str, Any] | None = None
    schema_strict: bool | None = None
    # images
    size: str | None = None
    quality: str | None = None
    partial_images: int | None = None
    output_format: str | None = None
    # speech
    input: str | None = None
    voice: str | None = None
    response_format: str | None = None
    speed: float | None = None
    stream_format: str | None = None
    # transcription (the file itself is passed to the transport separately)
    language: str | None = None
    # music
    duration: float | None = None  # seconds
    # anything else, merged last (the raw JSON view's extra keys)
    extra: dict[str, Any] = field(default_factory=dict)


def put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


def conversation(params: RequestParams) -> list[dict[str, Any]]:
    """The turns to send: the messages, else the prompt as one user turn."""
    turns = [dict(m) for m in params.messages]
    if not turns and params.prompt:
        turns = [{"role": "user", "content": params.prompt}]
    return turns


def _function(tool: dict[str, Any]) -> dict[str, Any]:
    """The function part of an OpenAI chat tool, accepting the flat shape too."""
    fn = tool.get("function")
    return fn if isinstance(fn, dict) else tool


def to_responses_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """Chat's {type, function: {name, description, parameters}} -> Responses' flat function tool."""
    if tool.get("type") not in (None, "function"):
        return copy.deepcopy(tool)  # a built-in tool (web_search...) passes through
    fn = _function(tool)
    out: dict[str, Any] = {"type": "function", "name": fn.get("name", "")}
    put(out, "description", fn.get("description"))
    out["parameters"] = copy.deepcopy(fn.get("parameters", {"type": "object", "properties": {}}))
    put(out, "strict", fn.get("strict"))
    return out


def to_anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """Chat's function tool -> Anthropic's {name, description, input_schema}."""
    fn = _function(tool)
    out: dict[str, Any] = {"name": fn.get("name", "")}
    put(out, "description", fn.get("description"))
    out["input_schema"] = copy.deepcopy(
        fn.get("parameters") or fn.get("input_schema") or {"type": "object", "properties": {}}
    )
    return out


def _chosen_function(choice: dict[str, Any]) -> str | None:
    fn = choice.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        return str(fn["name"])
    name = choice.get("name")
    return name if isinstance(name, str) else None


def to_responses_tool_choice(choice: str | dict[str, Any]) -> str | dict[str, Any]:
    """{"type": "function", "function": {"name"}} -> Responses' {"type": "function", "name"}."""
    if isinstance(choice, str):
        return choice
    name = _chosen_function(choice)
    return {"type": "function", "name": name} if name else copy.deepcopy(choice)


def to_anthropic_tool_choice(choice: str | dict[str, Any]) -> dict[str, Any]:
    """OpenAI's tool_choice -> Anthropic's: auto, any (for "required"), none, or one tool."""
    if isinstance(choice, str):
        return {"type": {"required": "any"}.get(choice, choice)}
    if choice.get("type") in ("auto", "any", "none", "tool") and "function" not in choice:
        return copy.deepcopy(choice)  # already Anthropic's shape
    name = _chosen_function(choice)
    return {"type": "tool", "name": name} if name else {"type": "auto"}


def take_turns(params: RequestParams, turns: Any) -> bool:
    """Fill prompt (one plain user turn) or messages; False when ``turns`` is not a list."""
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        return False
    if (
        len(turns) == 1
        and turns[0].get("role") == "user"
        and isinstance(turns[0].get("content"), str)
    ):
        params.prompt = turns[0]["content"]
    else:
        params.messages = [dict(t) for t in turns]
    return True


def chat_tool_from_flat(tool: Any) -> Any:
    if not isinstance(tool, dict) or tool.get("type") != "function" or "function" in tool:
        return copy.deepcopy(tool)
    fn: dict[str, Any] = {"name": tool.get("name", "")}
    for key in ("description", "parameters", "strict"):
        if key in tool:
            fn[key] = copy.deepcopy(tool[key])
    return {"type": "function", "function": fn}


def chat_tool_from_anthropic(tool: Any) -> Any:
    if not isinstance(tool, dict) or "input_schema" not in tool:
        return copy.deepcopy(tool)
    fn: dict[str, Any] = {"name": tool.get("name", "")}
    if "description" in tool:
        fn["description"] = tool["description"]
    fn["parameters"] = copy.deepcopy(tool["input_schema"])
    return {"type": "function", "function": fn}


def function_choice(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def form_fields(body: dict[str, Any]) -> dict[str, str]:
    """Multipart form values from a JSON-typed body: booleans as true/false, objects as JSON."""
    out: dict[str, str] = {}
    for key, value in body.items():
        if value is None:
            continue
        if isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, str):
            out[key] = value
        elif isinstance(value, int | float):
            out[key] = str(value)
        else:
            out[key] = json.dumps(value, separators=(",", ":"))
    return out


def format_of(p: RequestParams, *, nested: bool) -> dict[str, Any] | None:
    """The response format asked for: chat's ``response_format`` (``nested``: the schema sits in
    ``json_schema``) or Responses' ``text.format`` (flat: name, schema and strict beside type)."""
    if p.format_type is None:
        return None
    if p.format_type != "json_schema":
        return {"type": p.format_type}
    inner: dict[str, Any] = {"name": p.schema_name or "answer"}  # OpenAI requires the name
    inner["schema"] = copy.deepcopy(p.schema if p.schema is not None else {"type": "object"})
    put(inner, "strict", p.schema_strict)
    return (
        {"type": "json_schema", "json_schema": inner} if nested else {"type": "json_schema"} | inner
    )


_FORMAT_KEYS = frozenset({"name", "schema", "strict"})


def read_format(p: RequestParams, fmt: Any, *, nested: bool) -> bool:
    """Fill the format fields from a body's format (``format_of``'s shape); False (nothing taken)
    when it holds anything the fields do not reproduce."""
    if not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema"):
        return False
    if fmt["type"] != "json_schema":
        if len(fmt) != 1:
            return False
        p.format_type = str(fmt["type"])
        return True
    if nested:
        if set(fmt) != {"type", "json_schema"}:
            return False
        inner = fmt["json_schema"]
    else:
        inner = {k: v for k, v in fmt.items() if k != "type"}
    if not isinstance(inner, dict) or not set(inner) <= _FORMAT_KEYS:
        return False
    name, schema, strict = inner.get("name"), inner.get("schema"), inner.get("strict")
    if not isinstance(name, str) or not name or not isinstance(schema, dict):
        return False
    if strict is not None and not isinstance(strict, bool):
        return False
    p.format_type = "json_schema"
    p.schema_name, p.schema, p.schema_strict = name, copy.deepcopy(schema), strict
    return True
