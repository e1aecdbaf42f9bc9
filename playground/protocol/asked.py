"""What the request asked for, read once from its body: the checks that hold the answer to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from playground.protocol import safe_json
from playground.protocol.structured import requested_schema

__all__ = ["NOTHING_ASKED", "Asked", "asked_from"]

_TRUE: Final = frozenset({"true", "1", "yes", "on"})


@dataclass(frozen=True, slots=True)
class Asked:
    """The parts of a request the stream checks need; ``None`` everywhere when it is unknown
    (a raw ``curl -N`` file has no request: then no request-aware check runs)."""

    known: bool = False
    stream: bool | None = None  # an SSE stream was asked for (speech: ``stream_format: "sse"``)
    include_usage: bool | None = None  # chat: ``stream_options.include_usage``
    partial_images: int | None = None  # images: how many partial images were asked for
    schema: Mapping[str, Any] | None = None  # the JSON Schema the answer must follow


NOTHING_ASKED: Final = Asked()


def _flag(value: Any) -> bool | None:
    """A JSON boolean, or a multipart form field's text ("true")."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    return None


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def asked_from(route: str, request: Mapping[str, Any] | bytes | str | None) -> Asked:
    """Read the request body as sent (a JSON object, its bytes or text; multipart fields as the
    transport shows them, values as text). Anything unreadable is "unknown", never an error."""
    body: Any = request
    if isinstance(request, bytes | str):
        try:
            body = safe_json.loads(request)
        except ValueError:
            return NOTHING_ASKED
    if not isinstance(body, Mapping):
        return NOTHING_ASKED
    # `stream: true`, or speech's `stream_format: "sse"` (OAI-PY speech_create_params; the
    # default "audio" is one body): the same test the transport's build_spec makes.
    stream = _flag(body.get("stream")) is True or body.get("stream_format") == "sse"
    include_usage = None
    if route == "chat":
        options = body.get("stream_options")
        include_usage = bool(
            isinstance(options, Mapping) and _flag(options.get("include_usage")) is True
        )
    return Asked(
        known=True,
        stream=stream,
        include_usage=include_usage,
        partial_images=_count(body.get("partial_images")) if route == "images" else None,
        schema=requested_schema(route, body),
    )
