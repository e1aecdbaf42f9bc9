"""Route decoders, one module per route, and recognising the route from the first decisive event."""

from __future__ import annotations

from typing import Any, Final

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.findings import FindingSink
from playground.protocol.routes.base import RouteDecoder

__all__ = ["ROUTES", "detect_route", "make_decoder"]

ROUTES: Final = ("chat", "responses", "messages", "images", "speech", "transcription", "music")

_MESSAGES_TYPES: Final = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)


def _route_of_name(name: str) -> str | None:
    if name.startswith("response."):
        return "responses"
    if name in _MESSAGES_TYPES:
        return "messages"
    if name.startswith(("image_generation.", "image_edit.")):
        return "images"
    if name.startswith("speech.audio."):
        return "speech"
    if name.startswith("transcript.text."):
        return "transcription"
    if name.startswith("music.job."):
        return "music"
    return None


def detect_route(event_name: str, payload: Any) -> str | None:
    """The route a decisive event belongs to (SSE name or ``type``, or a chat chunk); else None."""
    if event_name != "message":
        found = _route_of_name(event_name)
        if found is not None:
            return found
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str):
            found = _route_of_name(kind)
            if found is not None:
                return found
        if "choices" in payload or payload.get("object") == "chat.completion.chunk":
            return "chat"
    return None


def make_decoder(route: str, sink: FindingSink, asked: Asked = NOTHING_ASKED) -> RouteDecoder:
    """A fresh decoder for ``route`` (imported lazily: a chat session never loads the others),
    holding what the request asked for (``asked``)."""
    if route == "chat":
        from playground.protocol.routes.chat import ChatDecoder

        return ChatDecoder(sink, asked)
    if route == "responses":
        from playground.protocol.routes.responses import ResponsesDecoder

        return ResponsesDecoder(sink, asked)
    if route == "messages":
        from playground.protocol.routes.messages import MessagesDecoder

        return MessagesDecoder(sink, asked)
    if route == "images":
        from playground.protocol.routes.images import ImagesDecoder

        return ImagesDecoder(sink, asked)
    if route == "speech":
        from playground.protocol.routes.speech import SpeechDecoder

        return SpeechDecoder(sink, asked)
    if route == "transcription":
        from playground.protocol.routes.transcription import TranscriptionDecoder

        return TranscriptionDecoder(sink, asked)
    if route == "music":
        from playground.protocol.routes.music import MusicDecoder

        return MusicDecoder(sink, asked)
    raise ValueError(f"unknown route {route!r}")
