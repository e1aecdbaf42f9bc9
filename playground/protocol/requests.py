"""Request bodies per route from what a person sets in the editor; pure (no httpx, no Qt)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ROUTES",
    "ROUTE_NAMES",
    "SAMPLE_TOOL",
    "RequestParams",
    "RouteSpec",
    "build_body",
    "form_fields",
    "route_spec",
    "to_anthropic_tool",
    "to_anthropic_tool_choice",
    "to_responses_tool",
    "to_responses_tool_choice",
]


@dataclass(frozen=True)
class RouteSpec:
    """One route of the gateway: its path relative to a base URL ending in /v1."""

    name: str
    title: str
    path: str
    method: str
    sse: bool  # the route streams server-sent events when asked to stream
    multipart: bool  # the body is multipart/form-data (a file upload), not JSON


# Order matters: the window shows one panel per route in this order.
# Paths from the seed pages ("Streaming", "Streaming events") and PROTOCOL.md §5-6; music is an
# async job API (seed: "a song can be heard while it renders, from its job's stream_url").
ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec("chat", "Chat completions", "/chat/completions", "POST", True, False),
    RouteSpec("responses", "Responses", "/responses", "POST", True, False),
    RouteSpec("messages", "Messages", "/messages", "POST", True, False),
    RouteSpec("images", "Images", "/images/generations", "POST", True, False),
    RouteSpec("speech", "Speech", "/audio/speech", "POST", True, False),
    RouteSpec("transcription", "Transcription", "/audio/transcriptions", "POST", True, True),
    RouteSpec("music", "Music", "/music", "POST", False, False),
)
ROUTE_NAMES: tuple[str, ...] = tuple(r.name for r in ROUTES)

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
    max_tokens: int | None = None
    reasoning_effort: str | None = None  # chat / responses
    thinking_budget: int | None = None  # messages
    tools: list[dict[str, Any]] = field(default_factory=list)  # OpenAI-style function tools
    tool_choice: str | dict[str, Any] | None = None  # "auto" | "none" | "required" | a function
    include_usage: bool | None = None  # chat: stream_options.include_usage
    n: int | None = None
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


def route_spec(name: str) -> RouteSpec:
    """The RouteSpec called ``name``; ValueError for an unknown route."""
    for spec in ROUTES:
        if spec.name == name:
            return spec
    raise ValueError(f"unknown route {name!r}; expected one of {', '.join(ROUTE_NAMES)}")


def _put(body: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        body[key] = value


def _conversation(params: RequestParams) -> list[dict[str, Any]]:
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
    _put(out, "description", fn.get("description"))
    out["parameters"] = copy.deepcopy(fn.get("parameters", {"type": "object", "properties": {}}))
    _put(out, "strict", fn.get("strict"))
    return out


def to_anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """Chat's function tool -> Anthropic's {name, description, input_schema}."""
    fn = _function(tool)
    out: dict[str, Any] = {"name": fn.get("name", "")}
    _put(out, "description", fn.get("description"))
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


def _chat(p: RequestParams) -> dict[str, Any]:
    turns = _conversation(p)
    if p.system:
        turns.insert(0, {"role": "system", "content": p.system})
    body: dict[str, Any] = {"model": p.model, "messages": turns, "stream": p.stream}
    _put(body, "temperature", p.temperature)
    _put(body, "max_tokens", p.max_tokens)
    _put(body, "reasoning_effort", p.reasoning_effort)
    _put(body, "n", p.n)
    if p.tools:
        body["tools"] = copy.deepcopy(p.tools)
        _put(body, "tool_choice", copy.deepcopy(p.tool_choice))
    if p.stream and p.include_usage is not None:
        # stream_options is only valid with stream: true (OpenAI rejects it otherwise).
        body["stream_options"] = {"include_usage": p.include_usage}
    return body


def _responses(p: RequestParams) -> dict[str, Any]:
    turns = _conversation(p)
    body: dict[str, Any] = {"model": p.model}
    # A lone user turn goes as a plain string, the form most examples use.
    if len(turns) == 1 and turns[0].get("role") == "user" and isinstance(turns[0].get("content"), str):
        body["input"] = turns[0]["content"]
    else:
        body["input"] = turns
    _put(body, "instructions", p.system or None)
    body["stream"] = p.stream
    _put(body, "temperature", p.temperature)
    _put(body, "max_output_tokens", p.max_tokens)
    if p.reasoning_effort:
        body["reasoning"] = {"effort": p.reasoning_effort}
    if p.tools:
        body["tools"] = [to_responses_tool(t) for t in p.tools]
        if p.tool_choice is not None:
            body["tool_choice"] = to_responses_tool_choice(p.tool_choice)
    return body


def _messages(p: RequestParams) -> dict[str, Any]:
    turns = [t for t in _conversation(p) if t.get("role") != "system"]
    system_parts = [str(t.get("content", "")) for t in _conversation(p) if t.get("role") == "system"]
    system = "\n\n".join([*([p.system] if p.system else []), *system_parts]) or None
    max_tokens = p.max_tokens if p.max_tokens is not None else ANTHROPIC_DEFAULT_MAX_TOKENS
    if p.thinking_budget is not None and max_tokens <= p.thinking_budget:
        # Anthropic: max_tokens must be greater than thinking.budget_tokens.
        max_tokens = p.thinking_budget + ANTHROPIC_DEFAULT_MAX_TOKENS
    body: dict[str, Any] = {"model": p.model, "max_tokens": max_tokens}
    _put(body, "system", system)
    body["messages"] = turns
    body["stream"] = p.stream
    _put(body, "temperature", p.temperature)
    if p.thinking_budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": p.thinking_budget}
    if p.tools:
        body["tools"] = [to_anthropic_tool(t) for t in p.tools]
        if p.tool_choice is not None:
            body["tool_choice"] = to_anthropic_tool_choice(p.tool_choice)
    return body


def _images(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "prompt": p.prompt or ""}
    _put(body, "n", p.n)
    _put(body, "size", p.size)
    _put(body, "quality", p.quality)
    _put(body, "output_format", p.output_format)
    body["stream"] = p.stream
    if p.stream and p.partial_images is not None:
        body["partial_images"] = p.partial_images  # 0-3, streaming only (PROTOCOL.md §5)
    return body


def _speech(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "input": p.input or p.prompt or ""}
    _put(body, "voice", p.voice)
    stream_format = p.stream_format or ("sse" if p.stream else None)
    response_format = p.response_format
    if stream_format == "sse" and response_format is None:
        # Seed "Streaming": only pcm is streamed as it is made.
        response_format = "pcm"
    _put(body, "response_format", response_format)
    _put(body, "speed", p.speed)
    _put(body, "stream_format", stream_format)
    return body


def _transcription(p: RequestParams) -> dict[str, Any]:
    # Multipart form fields; the file goes beside them (see form_fields).
    body: dict[str, Any] = {"model": p.model}
    _put(body, "language", p.language)
    _put(body, "response_format", p.response_format)
    _put(body, "temperature", p.temperature)
    _put(body, "prompt", p.prompt)
    body["stream"] = p.stream
    return body


def _music(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "prompt": p.prompt or ""}
    _put(body, "duration", p.duration)
    body["stream"] = p.stream
    return body


_BUILDERS = {
    "chat": _chat,
    "responses": _responses,
    "messages": _messages,
    "images": _images,
    "speech": _speech,
    "transcription": _transcription,
    "music": _music,
}


def build_body(route: str, params: RequestParams) -> dict[str, Any]:
    """The JSON body (or, for transcription, the form fields) that ``route`` expects."""
    route_spec(route)  # ValueError for an unknown route
    body = _BUILDERS[route](params)
    body.update(copy.deepcopy(params.extra))
    return body


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
