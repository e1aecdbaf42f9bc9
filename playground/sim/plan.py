"""What a text route will say, decided before it streams: thinking, text, tools, the end."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from playground.sim import prose
from playground.sim.context import new_id, seed_of
from playground.sim.schema_values import places_in, value_for


@dataclass(slots=True)
class Tool:
    name: str
    description: str
    schema: dict[str, Any]


@dataclass(slots=True)
class ToolCall:
    name: str
    arguments: str  # the JSON text, streamed in pieces
    call_id: str

    def pieces(self, size: int = 9) -> list[str]:
        """The arguments cut into several pieces, as providers stream them."""
        text = self.arguments
        return [text[i : i + size] for i in range(0, len(text), size)] or [""]


@dataclass(slots=True)
class Plan:
    reasoning: list[str]
    text: list[str]
    tool_calls: list[ToolCall]
    finish: str  # "stop" | "length" | "tool_calls"
    prompt_tokens: int
    preface: list[str] = field(default_factory=list)  # a short sentence before tool calls

    @property
    def completion_tokens(self) -> int:
        args = sum(prose.count_tokens(c.arguments) for c in self.tool_calls)
        return len(self.reasoning) + len(self.text) + len(self.preface) + args

    @property
    def reasoning_text(self) -> str:
        return "".join(self.reasoning)

    @property
    def answer_text(self) -> str:
        return "".join(self.preface) + "".join(self.text)


def text_of(content: Any) -> str:
    """The text in a message's content: a string, or a list of text parts (any vendor's shape)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                for key in ("text", "input_text", "content"):
                    value = part.get(key)
                    if isinstance(value, str):
                        parts.append(value)
                        break
                    if isinstance(value, list):
                        parts.append(text_of(value))
                        break
        return " ".join(p for p in parts if p)
    return ""


def fitting_tools(tools: list[Tool], prompt: str, choice: Any) -> list[Tool]:
    """The tools to call: named by tool_choice, else those the prompt mentions, else the first."""
    if not tools or choice == "none" or (isinstance(choice, dict) and choice.get("type") == "none"):
        return []
    if isinstance(choice, dict):
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        named = [t for t in tools if t.name == name]
        if named:
            return named
    low = prompt.lower()
    fits = []
    for tool in tools:
        words = set(re.split(r"[^a-z0-9]+", tool.name.lower())) | set(
            w for w in re.findall(r"[a-z]{5,}", tool.description.lower())
        )
        if tool.name.lower() in low or any(len(w) >= 4 and w in low for w in words):
            fits.append(tool)
    return fits or tools[:1]


def make_plan(
    *,
    prompt: str,
    prompt_tokens: int,
    reasoning: bool,
    tools: list[Tool],
    tool_choice: Any,
    after_tool_result: str | None,
    limit: int | None,
    tokens: int | None,
    incomplete: bool,
    preface: bool = False,
    call_prefix: str = "call_",
    variant: int = 0,
    lead: str = "",
    document: str | None = None,
) -> Plan:
    """Decide the whole answer deterministically from the prompt and the request's options.

    ``lead`` opens the answer text (what the earlier turns said, dialogue.py); ``document`` is a
    JSON document that is the whole answer text instead (structured output, structured.py)."""
    rng = random.Random(seed_of("plan", prompt))
    think = prose.tokens(prose.thinking(prompt)) if reasoning else []
    calls: list[ToolCall] = []
    if after_tool_result is None:
        for tool in fitting_tools(tools, prompt, tool_choice):
            schema = tool.schema if isinstance(tool.schema, dict) else {}
            args = value_for(
                schema or {"type": "object"}, rng, places=places_in(prompt), prompt=prompt
            )
            if not isinstance(args, dict):  # tool arguments are always a JSON object
                args = {}
            calls.append(ToolCall(tool.name, json.dumps(args), new_id(call_prefix)[:29]))
    if calls:
        names = ", ".join(f"`{c.name}`" for c in calls)
        pre = prose.tokens(f"I'll look that up with {names}.") if preface else []
        plan = Plan(think, [], calls, "tool_calls", prompt_tokens, pre)
    else:
        source = prompt if after_tool_result is None else f"{prompt} {after_tool_result}"
        text = prose.answer_tokens(source, tokens, variant)
        if after_tool_result is not None and tokens is None:
            used = f"The tool answered: {after_tool_result.strip()[:400]}\n\n"
            text = prose.tokens(used) + text
        text = prose.tokens(document) if document is not None else prose.tokens(lead) + text
        plan = Plan(think, text, [], "stop", prompt_tokens)
    cap = limit
    total = len(plan.reasoning) + len(plan.text)
    if incomplete:
        cap = max(3, (total * 2) // 5) if cap is None else min(cap, max(3, (total * 2) // 5))
    if cap is not None and cap < plan.completion_tokens:
        plan.reasoning = plan.reasoning[:cap]
        plan.text = plan.text[: max(0, cap - len(plan.reasoning))] if not calls else []
        plan.preface = []
        plan.tool_calls = []
        plan.finish = "length"
    return plan


def as_list(value: Any) -> list[Any]:
    """A request field that should be a list; anything else counts as empty."""
    return value if isinstance(value, list) else []


def dicts(value: Any) -> list[dict[str, Any]]:
    """The dict entries of a list field (messages, tools, input items)."""
    return [v for v in as_list(value) if isinstance(v, dict)]


def int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return max(1, int(min(value, 10_000_000)))
