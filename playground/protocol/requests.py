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
    "params_from_body",
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
    if (
        len(turns) == 1
        and turns[0].get("role") == "user"
        and isinstance(turns[0].get("content"), str)
    ):
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
    system_parts = [
        str(t.get("content", "")) for t in _conversation(p) if t.get("role") == "system"
    ]
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


# -- the inverse: a body typed in the raw JSON view back into the editor's fields -------------

_CHAT_KEYS = ("temperature", "max_tokens", "reasoning_effort", "n")


def _take_turns(params: RequestParams, turns: Any) -> bool:
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


def _chat_tool_from_flat(tool: Any) -> Any:
    if not isinstance(tool, dict) or tool.get("type") != "function" or "function" in tool:
        return copy.deepcopy(tool)
    fn: dict[str, Any] = {"name": tool.get("name", "")}
    for key in ("description", "parameters", "strict"):
        if key in tool:
            fn[key] = copy.deepcopy(tool[key])
    return {"type": "function", "function": fn}


def _chat_tool_from_anthropic(tool: Any) -> Any:
    if not isinstance(tool, dict) or "input_schema" not in tool:
        return copy.deepcopy(tool)
    fn: dict[str, Any] = {"name": tool.get("name", "")}
    if "description" in tool:
        fn["description"] = tool["description"]
    fn["parameters"] = copy.deepcopy(tool["input_schema"])
    return {"type": "function", "function": fn}


def _function_choice(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name}}


def params_from_body(route: str, body: dict[str, Any]) -> RequestParams:
    """Editor fields from a route's body (the raw JSON view); what has no field goes to ``extra``.

    ``build_body(route, params_from_body(route, b)) == b`` for every body ``build_body`` makes.
    """
    route_spec(route)
    rest = copy.deepcopy(body)
    p = RequestParams(model=str(rest.pop("model", "") or ""))
    if route != "speech" and "stream" in rest and isinstance(rest["stream"], bool | str):
        value = rest.pop("stream")
        p.stream = value is True or value == "true"
    elif route != "speech":
        p.stream = False  # build_body always writes stream; its absence means a plain answer

    def take(key: str, attr: str | None = None) -> None:
        if key in rest:
            setattr(p, attr or key, rest.pop(key))

    if route == "chat":
        turns = rest.get("messages")
        if isinstance(turns, list) and all(isinstance(t, dict) for t in turns):
            rest.pop("messages")
            if (
                turns
                and turns[0].get("role") == "system"
                and isinstance(turns[0].get("content"), str)
            ):
                p.system = turns[0]["content"]
                turns = turns[1:]
            _take_turns(p, turns)
        for key in _CHAT_KEYS:
            take(key)
        if isinstance(rest.get("tools"), list) and rest["tools"]:
            take("tools")
            take("tool_choice")
        options = rest.get("stream_options")
        if p.stream and isinstance(options, dict) and set(options) == {"include_usage"}:
            p.include_usage = bool(rest.pop("stream_options")["include_usage"])
    elif route == "responses":
        if isinstance(rest.get("input"), str):
            p.prompt = rest.pop("input")
        elif _take_turns(p, rest.get("input")):
            rest.pop("input")
        take("instructions", "system")
        take("temperature")
        take("max_output_tokens", "max_tokens")
        reasoning = rest.get("reasoning")
        if isinstance(reasoning, dict) and set(reasoning) == {"effort"}:
            p.reasoning_effort = rest.pop("reasoning")["effort"]
        if isinstance(rest.get("tools"), list) and rest["tools"]:
            p.tools = [_chat_tool_from_flat(t) for t in rest.pop("tools")]
            choice = rest.pop("tool_choice", None)
            if isinstance(choice, dict) and choice.get("type") == "function" and "name" in choice:
                choice = _function_choice(choice["name"])
            p.tool_choice = choice
    elif route == "messages":
        if isinstance(rest.get("system"), str):
            p.system = rest.pop("system")
        if _take_turns(p, rest.get("messages")):
            rest.pop("messages")
        take("max_tokens")
        take("temperature")
        thinking = rest.get("thinking")
        if (
            isinstance(thinking, dict)
            and thinking.get("type") == "enabled"
            and set(thinking)
            == {
                "type",
                "budget_tokens",
            }
        ):
            p.thinking_budget = rest.pop("thinking")["budget_tokens"]
        if isinstance(rest.get("tools"), list) and rest["tools"]:
            p.tools = [_chat_tool_from_anthropic(t) for t in rest.pop("tools")]
            choice = rest.pop("tool_choice", None)
            if isinstance(choice, dict):
                kind = choice.get("type")
                if kind == "tool" and isinstance(choice.get("name"), str):
                    choice = _function_choice(choice["name"])
                elif kind in ("auto", "any", "none") and len(choice) == 1:
                    choice = {"any": "required"}.get(str(kind), str(kind))
            p.tool_choice = choice
    elif route == "images":
        for key in ("prompt", "n", "size", "quality", "output_format", "partial_images"):
            take(key)
    elif route == "speech":
        take("input")
        for key in ("voice", "response_format", "speed", "stream_format"):
            take(key)
        p.stream = p.stream_format == "sse"
    elif route == "transcription":
        for key in ("language", "response_format", "temperature", "prompt"):
            take(key)
    elif route == "music":
        take("prompt")
        take("duration")
    p.extra = rest
    return p
