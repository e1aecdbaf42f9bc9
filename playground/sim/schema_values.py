"""Values generated from a JSON schema, so simulated tool calls carry valid arguments."""

from __future__ import annotations

import random
import re
from typing import Any

_WORDS = ["Paris", "blue", "alpha", "river", "north", "quick", "seven", "amber", "delta"]
_MAX_DEPTH = 6


def value_for(
    schema: Any,
    rng: random.Random,
    name: str = "",
    depth: int = 0,
    places: tuple[str, ...] = (),
) -> Any:
    """A deterministic value that validates against `schema` (the common JSON Schema subset).

    `places` are proper names from the prompt: a city or location argument uses the first, so
    "the weather in Paris" calls the tool for Paris, as a model would.
    """
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return _string_for(name, {}, rng, places)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(schema["enum"])
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return value_for((non_null or options)[0], rng, name, depth + 1, places)
    if isinstance(schema.get("allOf"), list) and schema["allOf"]:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            if isinstance(part, dict):
                for k, v in part.items():
                    if k in ("properties",) and isinstance(v, dict):
                        merged.setdefault("properties", {}).update(v)
                    elif k == "required" and isinstance(v, list):
                        merged.setdefault("required", []).extend(v)
                    else:
                        merged[k] = v
        return value_for(merged, rng, name, depth + 1, places)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"] or kind
        kind = kinds[0]
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "object":
        props = schema.get("properties") or {}
        out: dict[str, Any] = {}
        if isinstance(props, dict):
            for key, sub in props.items():
                out[key] = value_for(sub, rng, key, depth + 1, places)
        return out
    if kind == "array":
        low = int(schema.get("minItems", 1))
        high = int(schema.get("maxItems", max(low, 2)))
        count = max(low, min(high, 2))
        return [
            value_for(schema.get("items", {}), rng, name, depth + 1, places) for _ in range(count)
        ]
    if kind == "integer":
        return int(_number(schema, rng, integer=True))
    if kind == "number":
        return _number(schema, rng, integer=False)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string_for(name, schema, rng, places)


def _number(schema: dict[str, Any], rng: random.Random, *, integer: bool) -> float:
    low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
    high = schema.get("maximum", schema.get("exclusiveMaximum", 100))
    if "exclusiveMinimum" in schema and isinstance(schema["exclusiveMinimum"], int | float):
        low = schema["exclusiveMinimum"] + (1 if integer else 0.5)
    if "exclusiveMaximum" in schema and isinstance(schema["exclusiveMaximum"], int | float):
        high = schema["exclusiveMaximum"] - (1 if integer else 0.5)
    low, high = float(low), float(max(high, low))
    if integer:
        value: float = rng.randint(int(-(-low // 1)), max(int(-(-low // 1)), int(high // 1)))
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            value = max(value - value % step, -(-low // step) * step)
        return value
    return round(rng.uniform(low, high), 2)


def _string_for(
    name: str, schema: dict[str, Any], rng: random.Random, places: tuple[str, ...] = ()
) -> str:
    fmt = schema.get("format")
    if fmt == "date":
        return f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
    if fmt == "date-time":
        return f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T12:00:00Z"
    if fmt == "email":
        return "someone@example.com"
    if fmt in ("uri", "url"):
        return "https://example.com/"
    if fmt == "uuid":
        return "123e4567-e89b-42d3-a456-426614174000"
    low = name.lower()
    if "city" in low or "location" in low or "place" in low:
        text = places[0] if places else rng.choice(["Paris", "Tokyo", "Lima", "Oslo", "Nairobi"])
    elif "unit" in low:
        text = rng.choice(["celsius", "fahrenheit"])
    elif "query" in low or "search" in low or low == "q":
        text = "streaming events"
    else:
        text = rng.choice(_WORDS)
    min_len = int(schema.get("minLength", 0))
    max_len = int(schema.get("maxLength", 10_000))
    if len(text) < min_len:
        text = (text + "x" * min_len)[:min_len]
    return text[:max_len]


def places_in(prompt: str) -> tuple[str, ...]:
    """Capitalised words that do not start a sentence: the prompt's proper names, in order."""
    found: list[str] = []
    for sentence in re.split(r"[.!?]\s+", prompt):
        for word in re.findall(r"[A-Za-z][\w'-]*", sentence)[1:]:
            if word[0].isupper() and word not in found and word.lower() not in _NOT_PLACES:
                found.append(word)
    return tuple(found)


_NOT_PLACES = {"i", "i'm", "i'd", "i'll", "celsius", "fahrenheit"}
