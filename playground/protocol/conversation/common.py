"""Small readers shared by the wire translators: JSON shapes as they come, typed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from playground.protocol.conversation.model import Image, Part, Text, parse_data_url
from playground.protocol.conversation.parts import content_item, travels_on

__all__ = [
    "compact_json",
    "dict_items",
    "image_from_url",
    "join_text",
    "string",
    "text_or_parts",
]


def string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def dict_items(value: Any) -> list[dict[str, Any]]:
    """The dict entries of a JSON list (anything else in it is not a turn or a part)."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def join_text(value: Any) -> str:
    """A content that must be text: a string, or the text of a list of text parts."""
    if isinstance(value, str):
        return value
    texts = []
    for part in dict_items(value):
        text = part.get("text")
        if isinstance(text, str):
            texts.append(text)
    return "".join(texts)


def compact_json(value: Any) -> str:
    """Tool arguments as text from a JSON object (Anthropic sends ``input`` parsed)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def image_from_url(url: str, detail: str | None = None) -> Image:
    """An image from what OpenAI calls ``image_url``: bytes from a data URL, else the URL."""
    decoded = parse_data_url(url)
    if decoded is not None:
        return Image(decoded[0], decoded[1], None, detail)
    return Image("", None, url, detail)


def text_or_parts(
    route: str,
    parts: tuple[Part, ...],
    text_part: Callable[[Text], dict[str, Any]],
    image_part: Callable[[Image], dict[str, Any]],
) -> str | list[dict[str, Any]]:
    """A message's text, images and the parts declared with a content item on ``route``
    (parts.py) on an OpenAI wire: a lone text as a plain string (the shape most examples use),
    else each as the route's own item; other parts are not carried here."""
    shown = [p for p in parts if isinstance(p, Text | Image) or travels_on(route, p)]
    if len(shown) == 1 and isinstance(shown[0], Text):
        return shown[0].text
    items: list[dict[str, Any]] = []
    for part in shown:
        if isinstance(part, Text):
            items.append(text_part(part))
        elif isinstance(part, Image):
            items.append(image_part(part))
        elif (item := content_item(route, part)) is not None:
            items.append(item)
    return items
