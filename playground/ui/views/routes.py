"""What each route looks like in the window: its output views by role, its tab icon, its empty text.

The one table the panels and the window read (a new route adds one entry here): the views are
built from their factories in ``playground.ui.runtime.lazy`` when the panel first shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtWidgets import QStyle, QWidget

from playground.ui.runtime import lazy

__all__ = ["ROUTE_VIEWS", "RouteViews", "route_views"]

Pixmap = QStyle.StandardPixmap


@dataclass(frozen=True)
class RouteViews:
    """One route's place in the window."""

    views: tuple[tuple[str, Callable[[], QWidget]], ...]  # (role, factory), top to bottom
    icon: QStyle.StandardPixmap
    empty_text: str
    # Roles shown only once something arrived for them (thinking, tool calls, side images).
    on_content: frozenset[str] = frozenset()
    # Each role's share of the output splitter (pixels at the default size); none: even.
    sizes: dict[str, int] = field(default_factory=dict)
    stretch: str | None = None  # the role that takes the extra space
    text_rates: bool = False  # tokens per second mean something here (not for audio, images)


_CHAT_VIEWS: tuple[tuple[str, Callable[[], QWidget]], ...] = (
    ("thinking", lazy.thinking_view),
    ("answer", lazy.answer_view),
    ("structured", lazy.structured_view),  # in the answer's place when a JSON Schema is asked
    ("tools", lazy.tool_calls_view),
)
# Thinking and tool calls get a modest share; the answer is what people read.
_CHAT_SIZES = {"thinking": 130, "answer": 420, "structured": 420, "tools": 200, "images": 200}
_SEND = "press <b>Send</b> (Ctrl+Enter)"

ROUTE_VIEWS: dict[str, RouteViews] = {
    "chat": RouteViews(
        _CHAT_VIEWS,
        Pixmap.SP_MessageBoxQuestion,
        f"Type a message on the left and {_SEND}.<br>"
        "The answer streams in here; the events that carried it scroll past in the inspector.",
        frozenset({"thinking", "tools"}),
        _CHAT_SIZES,
        "answer",
        True,
    ),
    "responses": RouteViews(
        (*_CHAT_VIEWS, ("images", lazy.images_view)),  # image_generation_call partials
        Pixmap.SP_FileDialogContentsView,
        f"Type a message and {_SEND} to stream a Responses API answer.",
        frozenset({"thinking", "tools", "images"}),
        _CHAT_SIZES,
        "answer",
        True,
    ),
    "messages": RouteViews(
        _CHAT_VIEWS,
        Pixmap.SP_FileDialogInfoView,
        f"Type a message and {_SEND} to stream Anthropic Messages events.<br>"
        "Set a thinking budget to watch the thinking block and its signature arrive.",
        frozenset({"thinking", "tools"}),
        _CHAT_SIZES,
        "answer",
        True,
    ),
    "images": RouteViews(
        (("images", lazy.images_view),),
        Pixmap.SP_DesktopIcon,
        "Describe a picture and press <b>Send</b>.<br>"
        "Each partial image appears the moment it arrives, then the final one.",
    ),
    "speech": RouteViews(
        (("audio", lazy.audio_view),),
        Pixmap.SP_MediaVolume,
        "Type some text and press <b>Send</b>.<br>"
        "The audio plays as it arrives and its waveform is drawn live.",
    ),
    "transcription": RouteViews(
        (("transcript", lazy.transcript_view),),
        Pixmap.SP_FileIcon,
        "Pick or drop an audio file (a sample is preselected) "
        "and press <b>Send</b>.<br>The transcript streams in here.",
    ),
    "music": RouteViews(
        (("music", lazy.music_view),),
        Pixmap.SP_MediaSeekForward,
        "Describe the music and press <b>Send</b>.<br>The song plays while it renders.",
    ),
}


def route_views(route: str) -> RouteViews:
    """The table entry of ``route`` (KeyError for a route the window does not know)."""
    return ROUTE_VIEWS[route]
