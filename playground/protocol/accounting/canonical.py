"""A text request's canonical prefix: its tools, system and messages as segments in the order a
prompt cache reads them, each cut into pieces (the segment's own fields, then its content parts).

The order is tools, system, messages on every route (Anthropic's documented cache order; OpenAI
puts tools and system first as well). A segment's ``index`` is its position on the wire: the
tool's in ``tools``, the message's in ``messages`` (chat, messages) or ``input`` (responses).
``cache_control`` markers are not prompt text: they are kept apart as breakpoints (a top-level
one, Anthropic's automatic caching, is a breakpoint on the last block).

The simulator (sim/cache_prefix.py) builds the same segments; a test holds the two together.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["Breakpoint", "Canonical", "Piece", "Segment", "canonical_json", "canonical_request"]

LONG_STRING = 1024  # longer strings (base64 images) enter the prefix as their digest


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    kind: str  # "meta" (the segment's other fields), "text", or "other" (an image, a file...)


@dataclass(frozen=True, slots=True)
class Segment:
    part: str  # "tools" | "system" | "message"
    index: int
    pieces: tuple[Piece, ...]  # pieces[0] is the meta piece ("" when there is none)


@dataclass(frozen=True, slots=True)
class Breakpoint:
    """A ``cache_control`` marker: the cacheable prefix may end after piece ``piece`` of
    segment ``segment`` (positions in ``Canonical.segments``)."""

    segment: int
    piece: int
    ttl: str  # "5m" | "1h"


@dataclass(frozen=True, slots=True)
class Canonical:
    model: str
    segments: tuple[Segment, ...]
    breakpoints: tuple[Breakpoint, ...]


def _digested(value: Any) -> Any:
    if isinstance(value, str) and len(value) > LONG_STRING:
        return "sha256:" + hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()[:16]
    if isinstance(value, dict):
        return {str(k): _digested(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_digested(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, long strings as their digest: the same value, the same text."""
    return json.dumps(_digested(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _without_marker(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != "cache_control"}


def _meta(item: dict[str, Any]) -> dict[str, Any]:
    """A message's fields beside its content. ``"type": "message"`` is what a responses item
    says of itself: ``input: "text"`` and ``[{"type": "message", "role": "user", "content":
    "text"}]`` are the same prompt."""
    return {
        k: v
        for k, v in item.items()
        if k not in ("content", "cache_control") and not (k == "type" and v == "message")
    }


def _ttl(value: dict[str, Any]) -> str | None:
    marker = value.get("cache_control")
    if not isinstance(marker, dict):
        return None
    return "1h" if marker.get("ttl") == "1h" else "5m"


class _Builder:
    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.breakpoints: list[Breakpoint] = []

    def add(
        self, part: str, index: int, meta: str, content: Any, marked: str | None = None
    ) -> None:
        pieces = [Piece(meta, "meta")]
        position = len(self.segments)
        if isinstance(content, str):
            pieces.append(Piece(content, "text"))
        elif isinstance(content, list):
            for item in content:
                if isinstance(item, str):
                    pieces.append(Piece(item, "text"))
                    continue
                if not isinstance(item, dict):
                    continue
                text = item.get("text")
                kind = item.get("type")
                if isinstance(text, str) and kind in (None, "text", "input_text", "output_text"):
                    pieces.append(Piece(text, "text"))
                else:
                    pieces.append(Piece(canonical_json(_without_marker(item)), "other"))
                ttl = _ttl(item)
                if ttl is not None:
                    self.breakpoints.append(Breakpoint(position, len(pieces) - 1, ttl))
        if marked is not None:
            self.breakpoints.append(Breakpoint(position, len(pieces) - 1, marked))
        self.segments.append(Segment(part, index, tuple(pieces)))

    def tools(self, tools: object) -> None:
        for i, tool in enumerate(tools if isinstance(tools, list) else []):
            if isinstance(tool, dict):
                # The tool's JSON is its content: a reordered list differs at its first tool.
                self.add("tools", i, "", canonical_json(_without_marker(tool)), _ttl(tool))

    def messages(self, items: list[Any]) -> None:
        leading = True
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            role = item.get("role")
            leading = leading and role in ("system", "developer")
            meta = canonical_json(_meta(item))
            self.add("system" if leading else "message", i, meta, item.get("content"), _ttl(item))


def canonical_request(route: str, body: object) -> Canonical:
    """``body`` (a chat, responses or messages request) as its canonical prefix; any other value
    gives an empty one (nothing on the wire is trusted to have a shape)."""
    b = _Builder()
    if not isinstance(body, dict):
        return Canonical("", (), ())
    model = body.get("model")
    b.tools(body.get("tools"))
    if route == "responses":
        instructions = body.get("instructions")
        if isinstance(instructions, str) and instructions:
            b.add("system", 0, "", instructions)
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
        b.messages(items if isinstance(items, list) else [])
    elif route == "messages":
        system = body.get("system")
        if isinstance(system, str | list) and system:
            b.add("system", 0, "", system)
        raw = body.get("messages")
        b.messages(raw if isinstance(raw, list) else [])
    else:
        raw = body.get("messages")
        b.messages(raw if isinstance(raw, list) else [])
    # A top-level cache_control (Anthropic's automatic caching) marks the last block.
    ttl = _ttl(body)
    if ttl is not None and b.segments:
        last = len(b.segments) - 1
        b.breakpoints.append(Breakpoint(last, len(b.segments[last].pieces) - 1, ttl))
    return Canonical(
        model if isinstance(model, str) else "", tuple(b.segments), tuple(b.breakpoints)
    )
