"""``{{name}}``: found and filled; a name without a value stays as written."""

from __future__ import annotations

from typing import Any

from playground.evaluate.variables import fill, fill_tools, names_in, names_in_value


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
