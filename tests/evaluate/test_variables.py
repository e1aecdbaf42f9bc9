"""``{{name}}``: found and filled; a name without a value stays as written."""

from __future__ import annotations

from typing import Any

from playground.evaluate.variables import (
    fill,
    fill_body,
    fill_tools,
    names_in,
    names_in_body,
    names_in_value,
)


def test_names_and_filling() -> None:
    text = "{{a}} and {{ b }} and {{a}} and {{not closed"
    assert names_in(text) == ["a", "b"]
    assert fill(text, {"a": "x", "b": 2}) == "x and 2 and x and {{not closed"
    assert fill("{{missing}}", {}) == "{{missing}}"
    assert names_in_value({"k": ["{{x}}", {"d": "{{y.z}}"}]}) == ["x", "y.z"]


def test_tools_descriptions_are_filled_not_their_names() -> None:
    tool: dict[str, Any] = {
        "type": "function",
        "function": {
            "name": "{{n}}",
            "description": "for {{n}}",
            "parameters": {"properties": {"q": {"description": "about {{n}}"}}},
        },
    }
    (filled,) = fill_tools([tool], {"n": "Oslo"})
    assert filled["function"]["name"] == "{{n}}"
    assert filled["function"]["description"] == "for Oslo"
    assert filled["function"]["parameters"]["properties"]["q"]["description"] == "about Oslo"
    assert tool["function"]["description"] == "for {{n}}"  # the template is not changed


def test_a_built_body_is_filled_where_a_variant_is_on_every_route() -> None:
    chat = {
        "model": "{{model}}",
        "messages": [
            {"role": "system", "content": "About {{topic}}."},
            {"role": "user", "content": [{"type": "text", "text": "{{ topic }} {{n}}"}]},
        ],
        "tools": [{"type": "function", "function": {"name": "f", "description": "{{topic}}"}}],
    }
    responses = {
        "instructions": "About {{topic}}.",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "{{n}}"}]}],
        "tools": [{"type": "function", "name": "f", "description": "{{tool}}"}],
    }
    messages = {
        "system": [{"type": "text", "text": "About {{topic}}."}],
        "messages": [{"role": "user", "content": "{{n}}"}],
        "tools": [
            {
                "name": "f",
                "description": "d",
                "input_schema": {"properties": {"a": {"description": "{{arg}}"}}},
            }
        ],
    }
    assert names_in_body(chat) == ["topic", "n"]  # the model is sent as written
    assert names_in_body(responses) == ["topic", "n", "tool"]
    assert names_in_body(messages) == ["topic", "n", "arg"]
    values = {"topic": "owls", "n": "3", "tool": "T", "arg": "A"}
    assert fill_body(chat, values)["messages"][1]["content"][0]["text"] == "owls 3"
    assert fill_body(chat, values)["model"] == "{{model}}"
    assert fill_body(responses, values)["instructions"] == "About owls."
    assert fill_body(responses, values)["tools"][0]["description"] == "T"
    filled = fill_body(messages, values)
    assert filled["system"][0]["text"] == "About owls."
    assert filled["tools"][0]["input_schema"]["properties"]["a"]["description"] == "A"
    system: Any = messages["system"]
    assert system[0]["text"] == "About {{topic}}."  # the body given is not changed
