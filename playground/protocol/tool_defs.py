"""Tool definitions as the request editor lists them: a function tool's parts, its parameters
checked as JSON Schema, its canned result; pure.

The wire list stays what the editor has always sent (OpenAI chat function tools, translated per
route by ``protocol/params.py``); a canned result is the editor's own and never goes on the wire.
The schema check is the ``jsonschema`` library's metaschema validation (the draft the schema's
``$schema`` names, else the newest), not a validator of our own.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from playground.protocol import safe_json
from playground.protocol.params import chat_tool_from_anthropic, chat_tool_from_flat

__all__ = [
    "Check",
    "SchemaProblem",
    "ToolDef",
    "build_tools",
    "canned_results",
    "check_parameters",
    "json_tools",
    "metaschema_problems",
    "tool_defs",
]


@dataclass(frozen=True)
class SchemaProblem:
    """One reason a tool's parameters are not a usable JSON Schema."""

    path: str  # a JSON Pointer into the parameters ("" for the whole schema), or "line N"
    message: str

    def __str__(self) -> str:
        return f"{self.path or '/'}: {self.message}"


@dataclass
class ToolDef:
    """One tool of the list: a function tool's parts as typed, or a built-in tool kept whole."""

    name: str = ""
    description: str = ""
    parameters: str = ""  # JSON text as typed; "" sends no parameters
    canned: str = ""  # the result to answer its calls with (JSON or text); "" for none
    rest: dict[str, Any] = field(default_factory=dict)  # the function's other keys (strict...)
    builtin: dict[str, Any] | None = None  # a tool that is no function tool (web_search...)

    @property
    def label(self) -> str:
        if self.builtin is not None:
            return str(self.builtin.get("type") or "tool")
        return self.name or "(unnamed)"


def check_parameters(text: str) -> tuple[dict[str, Any] | None, list[SchemaProblem]]:
    """The parameters schema ``text`` holds, and what is wrong with it (nothing: it can be sent).

    Empty text is a tool without parameters. The top level must be an object schema: both
    OpenAI ("schema must be a JSON Schema of 'type: \"object\"'") and Anthropic (``input_schema``
    has ``type: "object"``) reject any other with a 400."""
    if not text.strip():
        return None, []
    if safe_json.exceeds_depth(text):
        return None, [SchemaProblem("", f"nested deeper than {safe_json.MAX_DEPTH} levels")]
    try:
        # Python's reader, past the depth check, for its messages: they name the line.
        schema = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        where = f"line {line}" if line is not None else ""
        return None, [SchemaProblem(where, f"not JSON ({getattr(exc, 'msg', exc)})")]
    if not isinstance(schema, dict):
        return None, [SchemaProblem("", "the parameters must be a JSON object (a schema)")]
    problems = metaschema_problems(schema)
    if not problems and schema.get("type") != "object":
        problems.append(SchemaProblem("/type", 'a tool\'s parameters must be {"type": "object"}'))
    return (schema if not problems else None), problems


def metaschema_problems(schema: dict[str, Any]) -> list[SchemaProblem]:
    """Every place ``schema`` breaks its draft's metaschema, in document order."""
    # Imported here: only an edited tool needs it, not the first frame.
    from jsonschema import validators

    cls: Any = validators.validator_for(schema, default=validators.Draft202012Validator)
    checker: Any = cls(cls.META_SCHEMA)
    found: list[SchemaProblem] = []
    for error in sorted(checker.iter_errors(schema), key=lambda e: list(map(str, e.path))):
        pointer = "".join(
            f"/{str(part).replace('~', '~0').replace('/', '~1')}" for part in error.path
        )
        found.append(SchemaProblem(pointer, _message(error)))
    return found


def _pointer(path: Any) -> str:
    """A JSON Pointer (RFC 6901: ``~`` and ``/`` escaped) to the place ``path`` names."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def _message(error: Any) -> str:
    """The error's own words; for an ``anyOf`` (a misspelt type, say) the reason of its most
    relevant branch ("'strin' is not one of [...]"), not "not valid under any of the given
    schemas"."""
    from jsonschema.exceptions import best_match

    context = list(error.context or ())
    inner: Any = best_match(context) if context else None
    return str(inner.message if inner is not None else error.message)


def tool_defs(tools: list[Any], canned: dict[str, str] | None = None) -> list[ToolDef]:
    """The list of ``tools`` (chat-shaped, as ``RequestParams.tools`` holds them; a Responses
    or Anthropic tool is read as its chat twin); ``canned`` gives back the results the list had
    for tools of the same name."""
    out: list[ToolDef] = []
    for raw in tools:
        tool = chat_tool_from_anthropic(chat_tool_from_flat(raw))
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function")
        if tool.get("type") not in (None, "function") or not isinstance(fn, dict):
            out.append(ToolDef(builtin=copy.deepcopy(tool)))
            continue
        name = str(fn.get("name", ""))
        params = fn.get("parameters")
        out.append(
            ToolDef(
                name=name,
                description=str(fn.get("description", "")),
                parameters="" if params is None else json.dumps(params, indent=2),
                canned=(canned or {}).get(name, ""),
                rest={
                    k: copy.deepcopy(v)
                    for k, v in fn.items()
                    if k not in ("name", "description", "parameters")
                },
            )
        )
    return out


Check = Callable[[str], tuple[dict[str, Any] | None, list[SchemaProblem]]]


def build_tools(
    defs: list[ToolDef], check: Check = check_parameters
) -> tuple[list[dict[str, Any]], list[ToolDef]]:
    """The wire list of ``defs`` and the tools left out of it: a function tool whose parameters
    are not a usable schema, or that has no name, is not sent (the list says why). ``check``
    is ``check_parameters`` or a cache of it."""
    tools: list[dict[str, Any]] = []
    left_out: list[ToolDef] = []
    for d in defs:
        if d.builtin is not None:
            tools.append(copy.deepcopy(d.builtin))
            continue
        schema, problems = check(d.parameters)
        if problems or not d.name.strip():
            left_out.append(d)
            continue
        tools.append(_wire(d, schema))
    return tools, left_out


def json_tools(defs: list[ToolDef]) -> list[dict[str, Any]]:
    """Every tool of ``defs`` as JSON, the ones not sent too (the "Edit as JSON" view):
    parameters that do not parse stay the text typed, as a JSON string."""
    out: list[dict[str, Any]] = []
    for d in defs:
        if d.builtin is not None:
            out.append(copy.deepcopy(d.builtin))
            continue
        schema: Any = None
        if d.parameters.strip():
            try:
                schema = safe_json.loads(d.parameters)
            except ValueError:
                schema = d.parameters
        out.append(_wire(d, schema))
    return out


def _wire(d: ToolDef, schema: Any) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": d.name.strip()}
    if d.description:
        fn["description"] = d.description
    if schema is not None:
        fn["parameters"] = copy.deepcopy(schema)
    fn.update(copy.deepcopy(d.rest))
    return {"type": "function", "function": fn}


def canned_results(defs: list[ToolDef]) -> dict[str, str]:
    """Tool name -> canned result, for the named tools that have one."""
    return {d.name.strip(): d.canned for d in defs if d.name.strip() and d.canned.strip()}
