"""Each kind of turn part declared once: whether it holds something, its block in the thread,
and its wire shape on each route where it travels as an item of a message's content.

A new kind of part is a frozen dataclass that subclasses ``model.ExtraPart`` and one
``declare(PartKind(...))``: the translators (``chat``, ``responses``, ``messages`` beside this
module) write and read it through its ``wire`` shapes, the thread keeps a turn that holds only
it (``holds_something``) and shows it with its ``block`` (a ``module:function`` the ui imports
when a turn first shows one, as a route names its decoder). The kinds the model names itself
are declared here too; where a route places one outside a message's content (a tool call in
``tool_calls``, thinking in ``reasoning``), its translator says so and the kind has no shape
for that route.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from playground.protocol.conversation.model import (
    Image,
    Part,
    ReasoningItem,
    RedactedThinking,
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Turn,
)

__all__ = [
    "PART_KINDS",
    "PartKind",
    "WireShape",
    "blocks_of",
    "content_item",
    "declare",
    "holds_something",
    "kind_of",
    "part_from_item",
    "part_from_stored",
    "stored_item",
    "travels_on",
]


@dataclass(frozen=True)
class WireShape:
    """A part as one item of a message's content on one route."""

    type: str  # the item's ``type``, which finds the shape again when a body is read
    write: Callable[[Any], dict[str, Any]]
    read: Callable[[dict[str, Any]], Part | None]  # None: the item holds no such part


def _always(part: Any) -> bool:
    return True


@dataclass(frozen=True)
class PartKind:
    """One kind of part."""

    type: type
    # What shows it in the thread: "module:function" taking the turn's block and the turn (the
    # ui's ``conversation/part_blocks.py`` holds the built-in ones); None: never shown.
    block: str | None
    # Whether a part of this kind is something: a turn whose parts are all nothing (an empty
    # text) is left out when a pasted body's turns join the thread.
    holds: Callable[[Any], bool] = _always
    wire: Mapping[str, WireShape] = field(default_factory=dict)  # route -> its content item
    # Its form in a conversation kept on disk (stored.py): the model's own kinds are written
    # there; a kind declared elsewhere is kept by this shape (None: it is not kept).
    stored: WireShape | None = None


_BLOCKS = "playground.ui.conversation.part_blocks:"
PART_KINDS: dict[type, PartKind] = {}


def declare(kind: PartKind) -> PartKind:
    """Make ``kind`` known (a kind declared again replaces the first declaration)."""
    PART_KINDS[kind.type] = kind
    return kind


def kind_of(part: object) -> PartKind | None:
    return PART_KINDS.get(type(part))


def holds_something(turn: Turn) -> bool:
    """Whether ``turn`` holds anything worth a turn (more than one part, or one that is)."""
    if len(turn.parts) > 1:
        return True
    return any((kind := kind_of(p)) is None or kind.holds(p) for p in turn.parts)


def blocks_of(turn: Turn) -> list[str]:
    """The blocks that show ``turn``'s parts, each once, in the order the kinds were declared."""
    present = {type(p) for p in turn.parts}
    blocks: list[str] = []
    for kind in PART_KINDS.values():
        if kind.type in present and kind.block is not None and kind.block not in blocks:
            blocks.append(kind.block)
    return blocks


def travels_on(route: str, part: object) -> bool:
    """Whether ``part`` has a declared content item on ``route``."""
    kind = kind_of(part)
    return kind is not None and route in kind.wire


def content_item(route: str, part: object) -> dict[str, Any] | None:
    """``part`` as a content item of ``route`` by its declared shape; None without one."""
    kind = kind_of(part)
    shape = kind.wire.get(route) if kind is not None else None
    return shape.write(part) if shape is not None else None


def stored_item(part: object) -> dict[str, Any] | None:
    """``part`` as a kept conversation's item by its kind's declared ``stored`` shape."""
    kind = kind_of(part)
    shape = kind.stored if kind is not None else None
    return shape.write(part) if shape is not None else None


def part_from_stored(item: dict[str, Any]) -> Part | None:
    """The part a kept conversation's item holds, by a declared ``stored`` shape of its type."""
    for kind in PART_KINDS.values():
        shape = kind.stored
        if shape is not None and shape.type == item.get("type"):
            return shape.read(item)
    return None


def part_from_item(route: str, item: dict[str, Any]) -> Part | None:
    """The part a content item of ``route`` holds, by a declared shape of its ``type``."""
    for kind in PART_KINDS.values():
        shape = kind.wire.get(route)
        if shape is not None and shape.type == item.get("type"):
            return shape.read(item)
    return None


# The model's own kinds, in the order a turn's block shows them. Their wire shapes are written
# where each route's translator places them (text and images in a message's content, calls and
# reasoning in fields of their own): only kinds declared elsewhere travel by ``wire``.
declare(PartKind(Thinking, _BLOCKS + "reasoning_block", lambda p: bool(p.text.strip())))
declare(PartKind(ReasoningItem, _BLOCKS + "reasoning_block"))
declare(PartKind(RedactedThinking, None))  # encrypted: sent back, never shown
declare(PartKind(Text, _BLOCKS + "text_block", lambda p: bool(p.text.strip())))
declare(PartKind(Image, _BLOCKS + "images_block"))
declare(PartKind(ToolCall, _BLOCKS + "calls_block"))
declare(PartKind(ToolResult, _BLOCKS + "results_block"))
