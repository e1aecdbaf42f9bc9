"""Tool definitions as the editor lists them: parameters checked as JSON Schema (each problem at
its JSON Pointer), the wire list built from the list and read back, canned results by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol.params import SAMPLE_TOOL, to_anthropic_tool, to_responses_tool
from playground.protocol.tool_defs import (
    SchemaProblem,
    ToolDef,
    build_tools,
    canned_results,
    check_parameters,
    json_tools,
    tool_defs,
)

TIME_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a timezone",
        "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
        "strict": True,
    },
}


def test_the_sample_tool_is_a_valid_schema() -> None:
    # The editor trusts the sample's schema without loading jsonschema at startup: it must be.
    schema = SAMPLE_TOOL["function"]["parameters"]
    assert check_parameters(json.dumps(schema, indent=2)) == (schema, [])


def test_every_problem_is_reported_at_its_json_pointer() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "strin"},
            "days": {"type": "integer", "minimum": "3"},
            "a/b": {"enum": "x"},
        },
        "required": "city",
    }
    assert check_parameters(json.dumps(schema)) == (
        None,
        [
            SchemaProblem("/properties/a~1b/enum", "'x' is not of type 'array'"),
            SchemaProblem(
                "/properties/city/type",
                "'strin' is not one of "
                "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']",
            ),
            SchemaProblem("/properties/days/minimum", "'3' is not of type 'number'"),
            SchemaProblem("/required", "'city' is not of type 'array'"),
        ],
    )
    assert str(SchemaProblem("/required", "x")) == "/required: x"
    assert str(SchemaProblem("", "x")) == "/: x"


def test_the_draft_the_schema_names_is_the_one_checked() -> None:
    # A boolean exclusiveMinimum is draft-04's; from draft-06 on it is a number.
    prop = {"type": "number", "minimum": 0, "exclusiveMinimum": True}
    old = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": prop},
    }
    assert check_parameters(json.dumps(old))[1] == []
    new = {"type": "object", "properties": {"n": prop}}
    assert check_parameters(json.dumps(new))[1] == [
        SchemaProblem("/properties/n/exclusiveMinimum", "True is not of type 'number'")
    ]


NOT_JSON = "not JSON (Expecting property name enclosed in double quotes)"
NOT_OBJECT = 'a tool\'s parameters must be {"type": "object"}'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{\n  "type": "object",\n', SchemaProblem("line 3", NOT_JSON)),
        ("[1]", SchemaProblem("", "the parameters must be a JSON object (a schema)")),
        ('{"type": "string"}', SchemaProblem("/type", NOT_OBJECT)),
    ],
)
def test_text_that_is_no_object_schema(text: str, problem: SchemaProblem) -> None:
    assert check_parameters(text) == (None, [problem])


def test_no_parameters_is_a_tool_without_them() -> None:
    assert check_parameters("  \n") == (None, [])
    tools, left = build_tools([ToolDef(name="ping")])
    assert tools == [{"type": "function", "function": {"name": "ping"}}] and left == []


def test_the_list_builds_the_wire_tools_it_was_read_from() -> None:
    builtin = {"type": "web_search"}
    tools = [SAMPLE_TOOL, TIME_TOOL, builtin]
    defs = tool_defs(tools)
    assert [d.label for d in defs] == ["get_weather", "get_time", "web_search"]
    assert defs[1].rest == {"strict": True} and defs[2].builtin == builtin
    assert build_tools(defs) == (tools, [])
    # Responses' flat tools and Anthropic's input_schema tools read as their chat twins.
    assert build_tools(tool_defs([to_responses_tool(SAMPLE_TOOL)]))[0] == [SAMPLE_TOOL]
    assert build_tools(tool_defs([to_anthropic_tool(SAMPLE_TOOL)]))[0] == [SAMPLE_TOOL]


def test_a_tool_that_cannot_be_sent_is_left_out_and_kept_in_the_json_view() -> None:
    defs = tool_defs([SAMPLE_TOOL, TIME_TOOL])
    defs[1].parameters = '{"type": "object", "properties": {"tz": {"type": "strin"}}}'
    defs.append(ToolDef(name=" ", parameters='{"type": "object"}'))
    defs.append(ToolDef(name="half", parameters='{"type": '))
    tools, left = build_tools(defs)
    assert tools == [SAMPLE_TOOL]
    assert left == defs[1:]
    shown = json_tools(defs)
    assert shown[1]["function"]["parameters"]["properties"]["tz"] == {"type": "strin"}
    assert shown[3]["function"]["parameters"] == '{"type": '  # the text typed, as a string


def test_canned_results_by_tool_name() -> None:
    defs = tool_defs([SAMPLE_TOOL, TIME_TOOL], {"get_time": '{"t": "09:40"}', "other": "x"})
    assert [d.canned for d in defs] == ["", '{"t": "09:40"}']
    defs[0].canned = "sunny"
    defs.append(ToolDef(name="", canned="lost"))
    defs.append(ToolDef(name="blank", canned="  "))
    assert canned_results(defs) == {"get_weather": "sunny", "get_time": '{"t": "09:40"}'}
