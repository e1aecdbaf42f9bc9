"""What each route looks like in the window: its output views by role, its tab icon, its empty text.

The one table the panels and the window read (a new route adds one entry here), and the views'
factories: each view's module loads when a panel first shows it (startup time: the chat panel
in the first frame shows its empty state and needs none of them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QStyle, QWidget

if TYPE_CHECKING:
    from playground.ui.views.answer_view import AnswerView
    from playground.ui.views.audio_view import AudioView
    from playground.ui.views.images_view import ImagesView
    from playground.ui.views.music_view import MusicView
    from playground.ui.views.structured_view import StructuredView
    from playground.ui.views.thinking_view import ThinkingView
    from playground.ui.views.tool_calls_view import ToolCallsView
    from playground.ui.views.transcript_view import TranscriptView

__all__ = [
    "ROUTE_VIEWS",
    "RouteViews",
    "answer_view",
    "audio_view",
    "images_view",
    "music_view",
    "route_icon",
    "route_views",
    "structured_view",
    "thinking_view",
    "tool_calls_view",
    "transcript_view",
]

Pixmap = QStyle.StandardPixmap
_ICONS: dict[str, QIcon] = {}


def route_icon(route: str) -> QIcon:
    """``route``'s icon, drawn for the project (resources/icons/routes/), in the variant of the
    palette in use when it is painted; a route without drawn icons has its standard pixmap."""
    icon = _ICONS.get(route)
    if icon is None:
        from playground.assets import route_icon_svg
        from playground.ui.kit.themed_icon import themed_icon

        light, dark = route_icon_svg(route, dark=False), route_icon_svg(route, dark=True)
        if light.is_file() and dark.is_file():
            icon = themed_icon(light, dark)
        else:
            from PySide6.QtWidgets import QApplication

            icon = QApplication.style().standardIcon(route_views(route).icon)
        _ICONS[route] = icon
    return icon


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
    # What the panel uploads as multipart besides its form: "audio" (the file to transcribe,
    # required), "image edit" (an image and mask: Send with one edits it; the panel lists its
    # requests). None: JSON only.
    upload: str | None = None


# ---- the views' factories: each imports its view's module on first use ----------------------
def answer_view() -> AnswerView:
    from playground.ui.views.answer_view import AnswerView

    return AnswerView()


def audio_view() -> AudioView:
    from playground.ui.views.audio_view import AudioView

    return AudioView()


def images_view() -> ImagesView:
    from playground.ui.views.images_view import ImagesView

    return ImagesView()


def music_view() -> MusicView:
    from playground.ui.views.music_view import MusicView

    return MusicView()


def structured_view() -> StructuredView:
    from playground.ui.views.structured_view import StructuredView

    return StructuredView()


def thinking_view() -> ThinkingView:
    from playground.ui.views.thinking_view import ThinkingView

    return ThinkingView()


def tool_calls_view() -> ToolCallsView:
    from playground.ui.views.tool_calls_view import ToolCallsView

    return ToolCallsView()


def transcript_view() -> TranscriptView:
    from playground.ui.views.transcript_view import TranscriptView

    return TranscriptView()


_CHAT_VIEWS: tuple[tuple[str, Callable[[], QWidget]], ...] = (
    ("thinking", thinking_view),
    ("answer", answer_view),
    ("structured", structured_view),  # in the answer's place when a JSON Schema is asked
    ("tools", tool_calls_view),
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
        (*_CHAT_VIEWS, ("images", images_view)),  # image_generation_call partials
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
        (("images", images_view),),
        Pixmap.SP_DesktopIcon,
        "Describe a picture and press <b>Send</b>.<br>"
        "Each partial image appears the moment it arrives, then the final one.",
        upload="image edit",
    ),
    "speech": RouteViews(
        (("audio", audio_view),),
        Pixmap.SP_MediaVolume,
        "Type some text and press <b>Send</b>.<br>"
        "The audio plays as it arrives and its waveform is drawn live.",
    ),
    "transcription": RouteViews(
        (("transcript", transcript_view),),
        Pixmap.SP_FileIcon,
        "Pick or drop an audio file (a sample is preselected) "
        "and press <b>Send</b>.<br>The transcript streams in here.",
        upload="audio",
    ),
    "music": RouteViews(
        (("music", music_view),),
        Pixmap.SP_MediaSeekForward,
        "Describe the music and press <b>Send</b>.<br>The song plays while it renders.",
    ),
}


def route_views(route: str) -> RouteViews:
    """The table entry of ``route`` (KeyError for a route the window does not know)."""
    return ROUTE_VIEWS[route]
