"""The request editor's parts: the choices its fields offer, default prompts, a path field, and
selecting a value in a choice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLineEdit

if TYPE_CHECKING:
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QComboBox

__all__ = [
    "DEFAULT_PROMPTS",
    "EFFORTS",
    "IMAGE_FORMATS",
    "IMAGE_QUALITY",
    "IMAGE_SIZES",
    "SPEECH_FORMATS",
    "VOICES",
    "DropLineEdit",
    "select_value",
]

EFFORTS = ("", "none", "minimal", "low", "medium", "high")
VOICES = ("alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer")
SPEECH_FORMATS = ("pcm", "wav", "mp3", "opus", "aac", "flac")
IMAGE_SIZES = ("1024x1024", "1024x1536", "1536x1024", "512x512", "256x256", "auto")
IMAGE_QUALITY = ("", "low", "medium", "high", "auto")
IMAGE_FORMATS = ("png", "jpeg", "webp")
# Each route's example prompt: the media routes' boxes start with it (a first Send shows what the
# route does); a conversation's message box starts empty under its placeholder, and a headless
# run without --prompt sends the example.
DEFAULT_PROMPTS = {
    "chat": "Explain server-sent events in two short paragraphs.",
    "responses": "Write a haiku about streaming tokens.",
    "messages": "What is the weather like in Paris today?",
    "images": "A lighthouse on a rocky coast at sunset",
    "speech": "Hello! This is the playground's built-in simulator speaking.",
    "music": "A calm piano loop with soft rain",
}


class DropLineEdit(QLineEdit):
    """A path field that accepts a dropped file."""

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            self.setText(urls[0].toLocalFile())
            event.acceptProposedAction()


def select_value(combo: QComboBox, value: str) -> None:
    """Select ``value`` in ``combo``, adding it first if the combo does not offer it."""
    i = combo.findData(value)
    if i < 0:
        combo.addItem(value or "default", value)
        i = combo.count() - 1
    combo.setCurrentIndex(i)
