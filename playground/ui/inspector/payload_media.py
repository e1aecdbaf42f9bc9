"""Finding the image or audio an event carries (for the inspector's Preview tab)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playground.protocol.media import b64decode_lenient, image_format

__all__ = ["Media", "find_media"]

# Where the bytes live, per docs/protocol.md: images §5 (``b64_json``), responses' image tool §3
# (``partial_image_b64``, the output item's ``result``), speech §6 (``audio``), chat/responses audio
# (``delta`` / ``data`` inside an audio object).
_IMAGE_KEYS = ("b64_json", "partial_image_b64", "result")
_AUDIO_KEYS = ("audio", "delta", "data")


@dataclass(slots=True)
class Media:
    kind: str  # "image" | "audio"
    data: bytes
    key: str  # the JSON key that carried it
    format: str | None


def _walk(value: Any, depth: int = 0) -> Any:
    if depth > 6:
        return
    if isinstance(value, dict):
        yield value
        for child in value.values():
            if isinstance(child, dict | list):
                yield from _walk(child, depth + 1)
    elif isinstance(value, list):
        for child in value[:64]:
            yield from _walk(child, depth + 1)


def find_media(payload: object, event_name: str = "") -> Media | None:
    """The first image or audio blob in ``payload`` (decoded), or None."""
    for node in _walk(payload):
        for key in _IMAGE_KEYS:
            value = node.get(key)
            if isinstance(value, str) and len(value) > 32:
                # Sniff the head before decoding megabytes of base64.
                fmt = image_format(b64decode_lenient(value[:64]) or b"")
                data = b64decode_lenient(value) if fmt else None
                if fmt and data:
                    return Media("image", data, key, fmt)
        kind = str(node.get("type") or event_name)
        for key in _AUDIO_KEYS:
            value = node.get(key)
            if isinstance(value, str) and value and ("audio" in kind or key == "audio"):
                data = b64decode_lenient(value)
                if data:
                    fmt = node.get("format")
                    return Media("audio", data, key, fmt if isinstance(fmt, str) else None)
    return None
