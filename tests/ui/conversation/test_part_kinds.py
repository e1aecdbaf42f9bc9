"""A kind of turn part declared once (protocol/conversation/parts.py): a kind registered here,
and nowhere else, travels in each route's body by its declared shape, is kept by the thread when
a turn holds only it, and is shown by its declared block."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from playground.protocol.conversation import (
    Conversation,
    Turn,
    from_chat,
    from_messages,
    from_responses,
    to_chat,
    to_messages,
    to_responses,
)
from playground.protocol.conversation.model import ExtraPart
from playground.protocol.conversation.parts import (
    PART_KINDS,
    PartKind,
    WireShape,
    declare,
    holds_something,
)


@dataclass(frozen=True, slots=True)
class Sticker(ExtraPart):
    """A kind of part the model does not name: a sticker, by its name."""

    name: str


def _shape(kind: str) -> WireShape:
    return WireShape(
        kind,
        lambda part: {"type": kind, "name": part.name},
        lambda item: Sticker(str(item.get("name") or "")),
    )


def sticker_block(block: Any, turn: Turn) -> None:
    """The sticker's block: its name in a label (the test finds it by its object name)."""
    from PySide6.QtWidgets import QLabel

    for part in turn.parts:
        if isinstance(part, Sticker):
            label = QLabel(f"[{part.name}]")
            label.setObjectName("sticker")
            block.parts_layout.addWidget(label)


@pytest.fixture(autouse=True)
def _sticker_kind() -> Iterator[None]:
    declare(
        PartKind(
            Sticker,
            f"{__name__}:sticker_block",
            wire={r: _shape(f"{r}_sticker") for r in ("chat", "responses", "messages")},
            stored=_shape("sticker"),
        )
    )
    yield
    PART_KINDS.pop(Sticker, None)


def test_the_declared_kind_travels_in_each_routes_body() -> None:
    turn = Turn("user", (Sticker("fox"),))
    conversation = Conversation((turn,))
    assert to_chat(conversation) == [
        {"role": "user", "content": [{"type": "chat_sticker", "name": "fox"}]}
    ]
    assert from_chat(to_chat(conversation)).turns == (turn,)
    wire = to_messages(conversation)
    assert wire["messages"][0]["content"] == [{"type": "messages_sticker", "name": "fox"}]
    assert from_messages(wire["messages"]).turns == (turn,)
    items = to_responses(conversation)["input"]
    assert items[0]["content"] == [{"type": "responses_sticker", "name": "fox"}]
    assert from_responses(items).turns == (turn,)


def test_the_declared_kind_is_kept_in_a_saved_conversation() -> None:
    from playground.protocol.conversation.stored import (
        conversation_from_json,
        conversation_to_json,
    )

    conversation = Conversation((Turn("user", (Sticker("fox"),)),))
    saved = conversation_to_json(conversation)
    assert saved["turns"][0]["parts"] == [{"type": "sticker", "name": "fox"}]
    assert conversation_from_json(saved) == conversation
    PART_KINDS.pop(Sticker, None)  # a kind that declares no stored form is refused, not lost
    with pytest.raises(ValueError):
        conversation_to_json(conversation)


def test_a_turn_holding_only_the_new_kind_is_kept_by_the_thread(sim: Any, qapp: Any) -> None:
    from panel_helpers import sim_panel

    assert holds_something(Turn("user", (Sticker("fox"),)))
    panel = sim_panel("chat", sim)
    panel.conversation.turns = [Turn.of("user", "hello"), Turn.of("assistant", "hi")]
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": [{"type": "chat_sticker", "name": "fox"}]}],
    }
    merged = panel.conversation.merge(body)
    assert merged["messages"][-1] == {
        "role": "user",
        "content": [{"type": "chat_sticker", "name": "fox"}],
    }
    panel.close()


def test_the_new_kind_is_shown_by_its_declared_block(qapp: Any) -> None:
    from PySide6.QtWidgets import QLabel

    from playground.ui.conversation.thread_view import ThreadView
    from playground.ui.conversation.turn_block import TurnBlock

    view = ThreadView()
    block = TurnBlock(0, Turn("user", (Sticker("fox"),)), False, view)
    label = block.findChild(QLabel, "sticker")
    assert label is not None and label.text() == "[fox]"
    view.close()
