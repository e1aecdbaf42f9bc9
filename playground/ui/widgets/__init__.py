"""Live output widgets: each follows a StreamState incrementally (reset / refresh / finish)."""

from __future__ import annotations

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
