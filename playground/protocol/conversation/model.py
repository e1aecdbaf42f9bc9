"""The route-neutral conversation: turns made of parts, immutable, with no wire shape of its own.

A Conversation is what the playground's thread shows and what each route's translator
(``chat``, ``responses``, ``messages`` beside this module) writes to and reads from the wire.
Parts hold exactly what a later request must send back: a tool call's arguments as the raw
string the model produced (docs/design.md: "arguments stay the raw string (the truth)"), a thinking
block with its signature, a Responses reasoning item as the JSON object it came in.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "ROLES",
    "Conversation",
    "ExtraPart",
    "Image",
    "Part",
    "ReasoningItem",
    "RedactedThinking",
    "Role",
    "Text",
    "Thinking",
    "ToolCall",
    "ToolResult",
    "Turn",
    "data_url",
    "parse_data_url",
    "with_text",
]

Role = Literal["system", "developer", "user", "assistant", "tool"]
ROLES: tuple[Role, ...] = ("system", "developer", "user", "assistant", "tool")


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class Image:
    """An image on a user turn: its bytes (sent inline as base64) or a URL the server fetches.

    ``detail`` is OpenAI's ``low|high`` hint; None means the default (``auto``)."""

    mime: str = "image/png"
    data: bytes | None = None
    url: str | None = None
    detail: str | None = None

    @property
    def source(self) -> str:
        """What the OpenAI routes send as ``image_url``: a data URL for bytes, else the URL."""
        if self.data is not None:
            return data_url(self.mime, self.data)
        return self.url or ""


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A function call the model made. ``arguments`` is the raw JSON text as it streamed.

    ``item_id`` is the Responses output item's own id (``fc_...``), distinct from ``id``
    (its ``call_id``); kept so the item goes back as it came."""

    id: str
    name: str
    arguments: str = "{}"
    item_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one tool call: text (JSON is text too), or an error (Anthropic's
    ``is_error``; the OpenAI routes have no such flag, so there it is only the content)."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Thinking:
    """Visible thinking; ``signature`` is Anthropic's opaque proof, returned unchanged
    (Anthropic: thinking blocks must be passed back with their signature in tool use)."""

    text: str
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class RedactedThinking:
    """Anthropic's ``redacted_thinking``: encrypted, never shown, sent back as it came."""

    data: str


@dataclass(frozen=True, slots=True)
class ReasoningItem:
    """A Responses ``reasoning`` output item, opaque: sent back unchanged in later input
    (OpenAI: reasoning items must accompany the function calls they led to)."""

    item: Mapping[str, Any] = field(default_factory=dict)

    @property
    def summary(self) -> str:
        """Its readable text (summary parts, else reasoning_text parts), for the thread."""
        texts: list[str] = []
        for key in ("summary", "content"):
            value = self.item.get(key)
            if isinstance(value, list):
                texts += [str(p["text"]) for p in value if isinstance(p, dict) and "text" in p]
            if texts:
                break
        return "\n\n".join(texts)


@dataclass(frozen=True, slots=True)
class ExtraPart:
    """The base of a kind of part declared outside this module (``parts.declare``): its wire
    shapes and its block come from its declaration."""


Part = (
    Text | Image | ToolCall | ToolResult | Thinking | RedactedThinking | ReasoningItem | ExtraPart
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of the thread. A ``tool`` turn holds the ToolResult parts answering the
    previous assistant turn's calls (parallel calls: one result each, sent together)."""

    role: Role
    parts: tuple[Part, ...] = ()
    # An Anthropic prompt cache breakpoint on the turn's last content block (messages only):
    # "5m" for ``cache_control: {"type": "ephemeral"}``, "1h" with ``"ttl": "1h"``; None: none.
    cache_breakpoint: str | None = None

    @classmethod
    def of(cls, role: Role, *parts: Part | str) -> Turn:
        return cls(role, tuple(Text(p) if isinstance(p, str) else p for p in parts))

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, Text))

    @property
    def reasoning(self) -> str:
        texts = [p.text for p in self.parts if isinstance(p, Thinking)]
        texts += [p.summary for p in self.parts if isinstance(p, ReasoningItem) and p.summary]
        return "\n\n".join(texts)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(p for p in self.parts if isinstance(p, ToolResult))

    @property
    def images(self) -> tuple[Image, ...]:
        return tuple(p for p in self.parts if isinstance(p, Image))


@dataclass(frozen=True, slots=True)
class Conversation:
    """The system text (the panel's System box) and the thread of turns, oldest first."""

    turns: tuple[Turn, ...] = ()
    system: str | None = None

    def add(self, *turns: Turn) -> Conversation:
        return replace(self, turns=self.turns + turns)

    def with_turns(self, turns: Iterable[Turn]) -> Conversation:
        return replace(self, turns=tuple(turns))

    def insert(self, index: int, turn: Turn) -> Conversation:
        """``turn`` placed before turn ``index`` (``len(turns)``: at the end)."""
        if not 0 <= index <= len(self.turns):
            raise IndexError(f"no place {index} in {len(self.turns)} turns")
        return replace(self, turns=(*self.turns[:index], turn, *self.turns[index:]))

    def replace_turn(self, index: int, turn: Turn) -> Conversation:
        if not 0 <= index < len(self.turns):
            raise IndexError(f"no turn {index} in {len(self.turns)} turns")
        return replace(self, turns=(*self.turns[:index], turn, *self.turns[index + 1 :]))

    def delete(self, index: int) -> Conversation:
        if not 0 <= index < len(self.turns):
            raise IndexError(f"no turn {index} in {len(self.turns)} turns")
        return replace(self, turns=self.turns[:index] + self.turns[index + 1 :])

    def truncate(self, index: int) -> Conversation:
        """The turns before turn ``index`` only (Regenerate drops that turn and all after it)."""
        return replace(self, turns=self.turns[: max(index, 0)])

    def carried(self) -> Conversation:
        """This conversation for another route: without thinking, redacted thinking and reasoning
        items, which only the vendor that made them accepts back (an Anthropic signature proves
        Anthropic's own thinking; a Responses reasoning item is OpenAI's), and without the turns
        that held nothing else."""
        turns = []
        for turn in self.turns:
            parts = tuple(p for p in turn.parts if not isinstance(p, _REASONING))
            if parts:
                turns.append(Turn(turn.role, parts))
        return replace(self, turns=tuple(turns))

    @property
    def open_calls(self) -> tuple[ToolCall, ...]:
        """The last assistant turn's calls that no later tool turn answers yet."""
        for i in range(len(self.turns) - 1, -1, -1):
            turn = self.turns[i]
            if turn.role == "assistant":
                answered = {r.call_id for t in self.turns[i + 1 :] for r in t.tool_results}
                return tuple(c for c in turn.tool_calls if c.id not in answered)
        return ()


# Reasoning parts: only their vendor takes them back; in a turn they come before its text.
_REASONING = (Thinking, RedactedThinking, ReasoningItem)


def with_text(turn: Turn, text: str) -> Turn:
    """``turn`` with its text parts replaced by ``text`` (none if it is empty), where its first
    text part was (else after its thinking); thinking, signatures, tool calls, results and
    images stay as they are, so an edited answer still goes back with its signature."""
    new: tuple[Part, ...] = (Text(text),) if text else ()
    parts = turn.parts
    first = next((i for i, p in enumerate(parts) if isinstance(p, Text)), None)
    if first is None:
        first = next((i for i, p in enumerate(parts) if not isinstance(p, _REASONING)), len(parts))
    kept_before = tuple(p for p in parts[:first] if not isinstance(p, Text))
    kept_after = tuple(p for p in parts[first:] if not isinstance(p, Text))
    return Turn(turn.role, kept_before + new + kept_after, turn.cache_breakpoint)


def data_url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def parse_data_url(url: str) -> tuple[str, bytes] | None:
    """``data:<mime>;base64,<data>`` as (mime, bytes); None for any other URL (RFC 2397)."""
    if not url.startswith("data:"):
        return None
    head, sep, payload = url[5:].partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    try:
        return head.removesuffix(";base64") or "text/plain", base64.b64decode(
            payload, validate=True
        )
    except (binascii.Error, ValueError):
        return None
