"""``{{name}}`` variables: found in, and filled into, text and the request parts that hold it."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeGuard

__all__ = [
    "PATTERN",
    "fill",
    "fill_body",
    "fill_tools",
    "fill_turns",
    "names_in",
    "names_in_body",
    "names_in_value",
]

# Mustache-like, as promptfoo, Langfuse and the Anthropic Console write them; spaces inside the
# braces are allowed ({{ topic }}), a name is a word (letters, digits, _, -, .).
PATTERN: Final = re.compile(r"\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}")


def names_in(text: str | None) -> list[str]:
    """The variable names ``text`` uses, in order of first use."""
    if not text:
        return []
    return list(dict.fromkeys(m.group(1) for m in PATTERN.finditer(text)))


def names_in_value(value: Any) -> list[str]:
    """The variable names used anywhere in the strings of a JSON value."""
    found: dict[str, None] = {}
    for text in _strings(value):
        found.update(dict.fromkeys(names_in(text)))
    return list(found)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def fill(text: str, values: Mapping[str, Any]) -> str:
    """``text`` with each ``{{name}}`` that has a value replaced by it; others stay as written
    (a literal ``{{x}}`` in a prompt about templates is not an error)."""
    if "{{" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            return match.group(0)
        value = values[name]
        return value if isinstance(value, str) else _text_of(value)

    return PATTERN.sub(one, text)


def _text_of(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False) if value is not None else ""


def fill_turns(turns: list[dict[str, Any]], values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every turn's text filled: a string content, or each text part of a content list."""
    out = []
    for turn in turns:
        turn = copy.deepcopy(turn)
        content = turn.get("content")
        if isinstance(content, str):
            turn["content"] = fill(content, values)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    part["text"] = fill(part["text"], values)
        out.append(turn)
    return out


def fill_tools(tools: list[dict[str, Any]], values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Tools with their descriptions filled (the function's and each parameter's)."""
    out = []
    for tool in tools:
        tool = copy.deepcopy(tool)
        inner = tool.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else tool
        if isinstance(function.get("description"), str):
            function["description"] = fill(function["description"], values)
        # A function's schema: "parameters" (chat, responses), "input_schema" (messages).
        _fill_descriptions(function.get("parameters"), values)
        _fill_descriptions(function.get("input_schema"), values)
        out.append(tool)
    return out


def _fill_descriptions(schema: Any, values: Mapping[str, Any]) -> None:
    if isinstance(schema, dict):
        if isinstance(schema.get("description"), str):
            schema["description"] = fill(schema["description"], values)
        for item in schema.values():
            _fill_descriptions(item, values)
    elif isinstance(schema, list):
        for item in schema:
            _fill_descriptions(item, values)


def fill_body(body: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """A built chat, responses or messages body with its variables filled where a variant's are:
    the system (``system``, ``instructions``), every turn's text (``messages``, ``input``) and the
    tools' descriptions. Other keys (the model, a schema's enum) are sent as written."""
    out = dict(body)
    for key in ("system", "instructions", "input"):
        value = out.get(key)
        if isinstance(value, str):
            out[key] = fill(value, values)
        elif key == "system" and isinstance(value, list):  # messages' system as text blocks
            out[key] = fill_turns([{"content": value}], values)[0]["content"]
        elif key == "input" and _turns(value):  # responses' input items
            out[key] = fill_turns(value, values)
    if _turns(messages := out.get("messages")):
        out["messages"] = fill_turns(messages, values)
    if _turns(tools := out.get("tools")):
        out["tools"] = fill_tools(tools, values)
    return out


def _turns(value: Any) -> TypeGuard[list[dict[str, Any]]]:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


class _Asked(dict[str, Any]):
    """A mapping with no values that notes every name ``fill`` asks it for, in order."""

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            self.setdefault(name, None)
        return False


def names_in_body(body: Mapping[str, Any]) -> list[str]:
    """The variable names ``fill_body`` would fill in ``body``, in order of first use: found by
    the fill itself, so the places looked at are the places filled."""
    asked = _Asked()
    fill_body(body, asked)
    return list(asked)
