"""The blocks that show each built-in kind of turn part in a turn's block, found by each kind's
declaration (protocol/conversation/parts.py names them as ``module:function``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from playground.ui.conversation.attachments import image_row
from playground.ui.conversation.turn_block import cut, text_label

if TYPE_CHECKING:
    from playground.protocol.conversation import Turn
    from playground.ui.conversation.turn_block import TurnBlock

__all__ = ["calls_block", "images_block", "reasoning_block", "results_block", "text_block"]


def reasoning_block(block: TurnBlock, turn: Turn) -> None:
    """Thinking and reasoning summaries, muted, above the text."""
    if turn.reasoning:
        block.parts_layout.addWidget(text_label("Thinking: " + cut(turn.reasoning), muted=True))


def text_block(block: TurnBlock, turn: Turn) -> None:
    """The text, rendered as Markdown (Edit opens an editor in its place)."""
    if turn.text:
        block.text_view = block.view.text_view(cut(turn.text))
        block.parts_layout.addWidget(block.text_view)


def images_block(block: TurnBlock, turn: Turn) -> None:
    """Thumbnails with their size (attachments.py), between the text and the calls."""
    block.attachments_layout.addWidget(image_row(turn.images))


def calls_block(block: TurnBlock, turn: Turn) -> None:
    for call in turn.tool_calls:
        block.calls_layout.addWidget(
            text_label(f"→ {call.name}({cut(call.arguments)})  [{call.id}]", mono=True)
        )


def results_block(block: TurnBlock, turn: Turn) -> None:
    for result in turn.tool_results:
        block.calls_layout.addWidget(
            text_label(f"← {result.call_id}: {cut(result.content)}", mono=True)
        )
