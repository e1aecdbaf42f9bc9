"""Values generated from a JSON schema, so simulated tool calls carry valid arguments."""

from __future__ import annotations

import functools
import random
import re
import zoneinfo
from typing import Any

_WORDS = ["Paris", "blue", "alpha", "river", "north", "quick", "seven", "amber", "delta"]
_MAX_DEPTH = 6


def value_for(
    schema: Any,
    rng: random.Random,
    name: str = "",
    depth: int = 0,
    places: tuple[str, ...] = (),
    prompt: str = "",
) -> Any:
    """A deterministic value that validates against `schema` (the common JSON Schema subset).

    The prompt decides where it names a value, as a model would: `places` are its proper names
    (a city or location argument uses the first, a time zone argument the zone of that city, so
    "the time in Tokyo" asks for Asia/Tokyo), an enum takes the option the prompt mentions, and
    an argument written out (``tz: Europe/Oslo``, ``count=3``) takes that value.
    """
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return _string_for(name, {}, rng, places, prompt)
    if "const" in schema:
        return schema["const"]
    written = _written_value(name, schema, prompt)
    if written is not None:
        return written
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        named = [v for v in schema["enum"] if isinstance(v, str) and _mentions(prompt, v)]
        return named[0] if named else rng.choice(schema["enum"])
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
            return value_for((non_null or options)[0], rng, name, depth + 1, places, prompt)
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
        return value_for(merged, rng, name, depth + 1, places, prompt)
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
                out[key] = value_for(sub, rng, key, depth + 1, places, prompt)
        return out
    if kind == "array":
        low = int(schema.get("minItems", 1))
        high = int(schema.get("maxItems", max(low, 2)))
        count = max(low, min(high, 2))
        return [
            value_for(schema.get("items", {}), rng, name, depth + 1, places, prompt)
            for _ in range(count)
        ]
    if kind == "integer":
        return int(_number(schema, rng, integer=True))
    if kind == "number":
        return _number(schema, rng, integer=False)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string_for(name, schema, rng, places, prompt)


def _mentions(prompt: str, word: str) -> bool:
    return bool(word) and re.search(rf"(?<!\w){re.escape(word)}(?!\w)", prompt, re.I) is not None


def _written_value(name: str, schema: dict[str, Any], prompt: str) -> Any:
    """The value the prompt writes out for argument ``name`` (``name: value``, ``name=value``,
    ``"name": "value"``) when it has the schema's type; else None."""
    if not name or not prompt:
        return None
    quoted = rf"(?:\"{re.escape(name)}\"|'{re.escape(name)}'|(?<![\w.]){re.escape(name)}(?!\w))"
    found = re.search(quoted + r"""\s*[:=]\s*(?:"([^"]*)"|'([^']*)'|([^\s,;"']+))""", prompt)
    if found is None:
        return None
    text = next(g for g in found.groups() if g is not None).rstrip(".")
    kind = schema.get("type")
    try:
        if kind == "integer":
            return int(text)
        if kind == "number":
            return float(text)
    except ValueError:
        return None
    if kind == "boolean":
        return {"true": True, "false": False}.get(text.lower())
    if kind in (None, "string"):
        enum = schema.get("enum")
        return text if not isinstance(enum, list) or text in enum else None
    return None


@functools.cache
def _zones_by_city() -> dict[str, str]:
    """``tokyo`` -> ``Asia/Tokyo``: the IANA zones by their last part (the system's tz data)."""
    try:
        zones = zoneinfo.available_timezones()
    except Exception:  # no tz data at all: zones are then named by the city alone
        zones = set()
    out: dict[str, str] = {}
    for zone in sorted(zones):
        if "/" in zone and not zone.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            out.setdefault(zone.rsplit("/", 1)[1].lower(), zone)
    return out


def _is_zone(name: str, description: str) -> bool:
    low = name.lower().replace("-", "_")
    return low in ("tz", "timezone", "time_zone", "zone", "tzid", "iana_timezone") or (
        "time zone" in description or "timezone" in description or "iana" in description
    )


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
    name: str,
    schema: dict[str, Any],
    rng: random.Random,
    places: tuple[str, ...] = (),
    prompt: str = "",
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
    description = str(schema.get("description") or "").lower()
    if _is_zone(name, description):
        zones = _zones_by_city()
        city = next((p for p in places if p.lower() in zones), None)
        if city is not None:
            text = zones[city.lower()]
        else:
            text = places[0] if places else rng.choice(["Europe/Paris", "Asia/Tokyo", "UTC"])
    elif any(w in low or w in description for w in ("city", "location", "place")):
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
