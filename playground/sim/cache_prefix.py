"""A text request's canonical prefix as the simulator's prompt cache reads it, and its tokens.

The order is tools, system, messages; each segment is cut into pieces (its own fields, then
each content part) and counted as 4 tokens of framing plus its pieces' tokens, where a token is a
run of ASCII letters, a run of digits or any one other character (with the whitespace before
it). ``cache_control`` markers are not prompt text: they are the breakpoints. The simulator
shares no code with the protocol layer; the same rules are written there for the window's
estimate (docs/cache-and-cost.md), and a test holds the two counts together.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

SEGMENT_OVERHEAD = 4
LONG_STRING = 1024
_TOKEN = re.compile(r"\s*(?:[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9])")


def count_text(text: str) -> int:
    return len(_TOKEN.findall(text))


def _digested(value: Any) -> Any:
    if isinstance(value, str) and len(value) > LONG_STRING:
        return "sha256:" + hashlib.sha256(value.encode("utf-8", "replace")).hexdigest()[:16]
    if isinstance(value, dict):
        return {str(k): _digested(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_digested(v) for v in value]
    return value


def _json(value: Any) -> str:
    return json.dumps(_digested(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _unmarked(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != "cache_control"}


def _ttl(value: dict[str, Any]) -> str | None:
    marker = value.get("cache_control")
    if not isinstance(marker, dict):
        return None
    return "1h" if marker.get("ttl") == "1h" else "5m"


@dataclass(slots=True)
class Prefix:
    """The request's pieces in cache order; ``ends[i]`` the tokens through piece i, and the
    breakpoints as (piece position, ttl)."""

    model: str
    route: str = "chat"
    pieces: list[str] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    marks: list[tuple[int, str]] = field(default_factory=list)
    tokens: int = 0

    def _piece(self, text: str, overhead: int = 0) -> None:
        self.tokens += overhead + count_text(text)
        self.pieces.append(text)
        self.ends.append(self.tokens)

    def segment(self, meta: str, content: Any, marked: str | None = None) -> None:
        self._piece(meta, SEGMENT_OVERHEAD)
        if isinstance(content, str):
            self._piece(content)
        elif isinstance(content, list):
            for item in content:
                if isinstance(item, str):
                    self._piece(item)
                    continue
                if not isinstance(item, dict):
                    continue
                text = item.get("text")
                if isinstance(text, str) and item.get("type") in (
                    None,
                    "text",
                    "input_text",
                    "output_text",
                ):
                    self._piece(text)
                else:
                    self._piece(_json(_unmarked(item)))
                ttl = _ttl(item)
                if ttl is not None:
                    self.marks.append((len(self.pieces) - 1, ttl))
        if marked is not None:
            self.marks.append((len(self.pieces) - 1, marked))

    def messages(self, items: list[Any]) -> None:
        for item in items:
            if isinstance(item, dict):
                # "type": "message" is what a responses item says of itself: the same prompt
                # as a plain string input.
                meta = _json(
                    {
                        k: v
                        for k, v in item.items()
                        if k not in ("content", "cache_control")
                        and not (k == "type" and v == "message")
                    }
                )
                self.segment(meta, item.get("content"), _ttl(item))

    def digests(self) -> list[str]:
        """A digest of the prefix through each piece (the route and model first: each route of
        each model has its own cache): equal digests, equal prefixes."""
        running = hashlib.sha256(f"{self.route}\x1f{self.model}".encode("utf-8", "replace"))
        out = []
        for piece in self.pieces:
            running.update(b"\x1e" + piece.encode("utf-8", "replace"))
            out.append(running.copy().hexdigest())
        return out


def prefix_of(route: str, body: dict[str, Any]) -> Prefix:
    """The canonical prefix of a chat, responses or messages body."""
    model = body.get("model")
    p = Prefix(model if isinstance(model, str) else "", route)
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict):
            p.segment("", _json(_unmarked(tool)), _ttl(tool))
    if route == "responses":
        instructions = body.get("instructions")
        if isinstance(instructions, str) and instructions:
            p.segment("", instructions)
        raw = body.get("input")
        items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw
        p.messages(items if isinstance(items, list) else [])
    elif route == "messages":
        system = body.get("system")
        if isinstance(system, str | list) and system:
            p.segment("", system)
        raw = body.get("messages")
        p.messages(raw if isinstance(raw, list) else [])
    else:
        raw = body.get("messages")
        p.messages(raw if isinstance(raw, list) else [])
    ttl = _ttl(body)  # a top-level cache_control (automatic caching) marks the last block
    if ttl is not None and p.pieces:
        p.marks.append((len(p.pieces) - 1, ttl))
    return p
