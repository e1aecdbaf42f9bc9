"""Live output widgets: each follows a StreamState incrementally (reset / refresh / finish)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .answer_view import AnswerView
    from .audio_view import AudioView
    from .images_view import ImagesView
    from .music_view import MusicView
    from .thinking_view import ThinkingView
    from .tool_calls_view import ToolCallsView
    from .transcript_view import TranscriptView

__all__ = [
    "AnswerView",
    "AudioView",
    "ImagesView",
    "MusicView",
    "ThinkingView",
    "ToolCallsView",
    "TranscriptView",
]

# Each class loads with its own module, when first asked for (issue 7: startup): the chat panel
# shown in the first frame needs three of them, not the image, audio and music views.
_MODULES = {
    "AnswerView": "answer_view",
    "AudioView": "audio_view",
    "ImagesView": "images_view",
    "MusicView": "music_view",
    "ThinkingView": "thinking_view",
    "ToolCallsView": "tool_calls_view",
    "TranscriptView": "transcript_view",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
