"""Structured output: the JSON Schema a request asks the answer to follow, on each route, and a
document made from it (values from the schema, as tool arguments are)."""

from __future__ import annotations

import json
import random
from typing import Any

from playground.sim.context import seed_of
from playground.sim.schema_values import places_in, value_for

_ANY_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
}


def _from_format(fmt: Any, nested: bool) -> dict[str, Any] | None:
    if not isinstance(fmt, dict):
        return None
    if fmt.get("type") == "json_object":
        return _ANY_OBJECT
    if fmt.get("type") != "json_schema":
        return None
    holder = fmt.get("json_schema") if nested else fmt
    schema = holder.get("schema") if isinstance(holder, dict) else None
    return schema if isinstance(schema, dict) else {"type": "object"}


def requested_schema(route: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The schema asked for: chat ``response_format``, responses ``text.format``, messages
    ``output_format`` (Anthropic's structured outputs) or ``output_config.format``."""
    if route == "chat":
        return _from_format(body.get("response_format"), nested=True)
    if route == "responses":
        text = body.get("text")
        return _from_format(text.get("format"), nested=False) if isinstance(text, dict) else None
    config = body.get("output_config")
    fmt = config.get("format") if isinstance(config, dict) else body.get("output_format")
    return _from_format(fmt, nested=False)


def document(schema: dict[str, Any], prompt: str) -> str:
    """A JSON document valid against ``schema``, the same for the same prompt."""
    rng = random.Random(seed_of("structured", prompt))
    value = value_for(schema, rng, places=places_in(prompt), prompt=prompt)
    if schema is _ANY_OBJECT:
        value = {"answer": f"A short answer about {prompt.strip()[:60] or 'this'}"}
    return json.dumps(value, ensure_ascii=False)
