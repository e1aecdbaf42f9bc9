"""The cache scenarios as request bodies on chat, responses and messages: a conversation's
first request and the second one each scenario sends, and where it should diverge."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

ROUTES = ("chat", "responses", "messages")
PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}
SYSTEM = "You are a meticulous assistant for the playground's cache tests; answer briefly. " * 6
STAMP = "Now: 2026-12-04 20:00:0"
TURNS = [
    "What is the weather usually like in Paris in the spring, and should I pack an umbrella?",
    "Spring in Paris is mild, often showery: yes, pack one.",
    "And what about the evenings, are they cold?",
    "Evenings are cool: bring a light jacket.",
    "Thanks. One more thing: is the metro easy to use?",
]
_TOOL_PARAMS = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city to look up"}},
    "required": ["city"],
}
TOOLS = [("get_weather", "The weather in a city"), ("get_time", "The local time in a city")]


def tools_for(route: str, order: list[int]) -> list[dict[str, Any]]:
    out = []
    for i in order:
        name, text = TOOLS[i]
        if route == "chat":
            out.append(
                {
                    "type": "function",
                    "function": {"name": name, "description": text, "parameters": _TOOL_PARAMS},
                }
            )
        elif route == "responses":
            out.append(
                {"type": "function", "name": name, "description": text, "parameters": _TOOL_PARAMS}
            )
        else:
            out.append({"name": name, "description": text, "input_schema": _TOOL_PARAMS})
    return out


def body(
    route: str,
    turns: list[str],
    *,
    system: str | None = SYSTEM,
    tools: list[int] | None = None,
    marks: list[int] | None = None,
) -> dict[str, Any]:
    """A request with ``turns`` (user, assistant, user...); ``marks``: the turns that carry a
    ``cache_control`` breakpoint (messages: the last user turn and the system by default)."""
    if marks is None and route == "messages":
        marks = [len(turns) - 1]
    marked = set(marks or [])
    items: list[dict[str, Any]] = []
    for i, text in enumerate(turns):
        role = "user" if i % 2 == 0 else "assistant"
        content: Any = text
        if i in marked:
            kind = "input_text" if route == "responses" and role == "user" else "text"
            if route == "responses" and role == "assistant":
                kind = "output_text"
            content = [{"type": kind, "text": text, "cache_control": {"type": "ephemeral"}}]
        items.append({"role": role, "content": content})
    out: dict[str, Any] = {"model": "sim-chat", "stream": False}
    if tools is not None:
        out["tools"] = tools_for(route, tools)
    if route == "chat":
        out["messages"] = ([{"role": "system", "content": system}] if system else []) + items
    elif route == "responses":
        if system:
            out["instructions"] = system
        out["input"] = items
    else:
        out["max_tokens"] = 64
        if system:
            out["system"] = [
                {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
            ]
        out["messages"] = items
    return out


def first_turn_index(route: str, system: bool = True) -> int:
    """The wire index of the first user turn (chat's system message comes before it)."""
    return 1 if route == "chat" and system else 0


@dataclass(frozen=True)
class Scenario:
    name: str
    first: dict[str, Any]
    second: dict[str, Any]
    status: str
    divergence: dict[str, int | str] | None = None
    headers: dict[str, str] | None = None
    pause: float = 0.0  # seconds between the two (past the shortened lifetime for "expired")


def scenarios(route: str) -> list[Scenario]:
    one, three, five = TURNS[:1], TURNS[:3], TURNS[:5]
    edited = copy.copy(five)
    edited[0] = TURNS[0].replace("in the spring", "in the autumn")
    edit_at = TURNS[0].index("spring")
    tool_a, tool_b = tools_for(route, [0])[0], tools_for(route, [1])[0]
    from playground.protocol.accounting.canonical import canonical_json

    tools_offset = next(
        i
        for i, (a, b) in enumerate(
            zip(canonical_json(tool_a), canonical_json(tool_b), strict=False)
        )
        if a != b
    )
    return [
        Scenario("stable", body(route, one), body(route, three), "hit"),
        Scenario(
            "system-timestamp",
            body(route, one, system=SYSTEM + STAMP + "1"),
            body(route, three, system=SYSTEM + STAMP + "9"),
            "prefix_changed",
            {"part": "system", "index": 0, "offset": len(SYSTEM + STAMP)},
        ),
        Scenario(
            "tools-reordered",
            body(route, one, tools=[0, 1]),
            body(route, three, tools=[1, 0]),
            "prefix_changed",
            {"part": "tools", "index": 0, "offset": tools_offset},
        ),
        Scenario(
            "early-turn-edited",
            body(route, three),
            body(route, edited),
            "prefix_changed",
            {"part": "message", "index": first_turn_index(route), "offset": edit_at},
        ),
        Scenario("expired", body(route, one), body(route, three), "expired", pause=1.6),
        Scenario(
            "short-prompt",
            body(route, ["Hi"], system=None),
            body(route, ["Hi", "Hello!", "Bye"], system=None),
            "below_minimum",
        ),
        Scenario(
            "not-reported",
            body(route, one),
            body(route, three),
            "not_reported",
            headers={"X-Sim-Fault": "no-cache-usage"},
        ),
        Scenario(
            "breakpoint-moved",
            body(route, three, marks=[2]),
            body(route, three, marks=[0]),
            "prefix_changed",
            {"part": "cache_control", "index": first_turn_index(route), "offset": 0},
        ),
    ]
