"""Where two requests' canonical prefixes first differ: model, tools, system, message N, the
content part within it and the character offset, with a little of both sides."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.accounting.canonical import Canonical, Segment

__all__ = ["Divergence", "first_divergence"]

SIDE_CHARS = 40  # how much of each side the divergence keeps to show


@dataclass(frozen=True, slots=True)
class Divergence:
    part: str  # "model" | "tools" | "system" | "message" | "cache_control"
    index: int  # the wire position (tool, message); 0 for the model and a top-level system
    offset: int  # characters into the differing piece
    content_part: int | None = None  # which content part of the segment (None: its own fields)
    segment: int = 0  # position in the canonical segments (tokens before it: the shared prefix)
    before: str = ""
    after: str = ""

    def to_json(self) -> dict[str, Any]:
        """The headless contract's object: part, index, offset."""
        return {"part": self.part, "index": self.index, "offset": self.offset}

    def describe(self) -> str:
        where = self.part
        if self.part in ("tools", "message") or (self.part == "system" and self.index):
            where += f" {self.index}"
        if self.content_part is not None:
            where += f", content part {self.content_part}"
        return f"{where} at character {self.offset}: {self.before!r} -> {self.after!r}"


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _sides(a: str, b: str, at: int) -> tuple[str, str]:
    start = max(0, at - 10)
    return a[start : at + SIDE_CHARS], b[start : at + SIDE_CHARS]


def _segments_differ(position: int, old: Segment, new: Segment) -> Divergence | None:
    if (old.part, old.index) != (new.part, new.index):
        text = new.pieces[1].text if len(new.pieces) > 1 else new.pieces[0].text
        return Divergence(new.part, new.index, 0, None, position, "", text[:SIDE_CHARS])
    for k in range(max(len(old.pieces), len(new.pieces))):
        a = old.pieces[k].text if k < len(old.pieces) else ""
        b = new.pieces[k].text if k < len(new.pieces) else ""
        if a != b or (k < len(old.pieces)) != (k < len(new.pieces)):
            at = _common(a, b)
            before, after = _sides(a, b, at)
            return Divergence(
                new.part, new.index, at, k - 1 if k else None, position, before, after
            )
    return None


def first_divergence(old: Canonical, new: Canonical) -> Divergence | None:
    """The first place ``new`` differs from ``old``; None when ``old``'s segments all come back
    unchanged at the start of ``new`` (a request that adds turns, or drops the last ones)."""
    if old.model != new.model:
        at = _common(old.model, new.model)
        return Divergence("model", 0, at, None, 0, old.model[:SIDE_CHARS], new.model[:SIDE_CHARS])
    for position in range(min(len(old.segments), len(new.segments))):
        found = _segments_differ(position, old.segments[position], new.segments[position])
        if found is not None:
            return found
    return None
