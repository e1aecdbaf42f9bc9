"""The one route registry: ``ROUTES``, a tuple of ``Route`` descriptors, and what derives from it.

Order matters: the window shows one panel per route in this order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from playground.protocol.routes import (
    chat,
    images,
    messages,
    music,
    responses,
    speech,
    transcription,
)
from playground.protocol.routes.route import Route

if TYPE_CHECKING:  # the registry is read at startup; orjson, decoders, state load with a stream
    from playground.protocol.asked import Asked
    from playground.protocol.decoders.base import RouteDecoder
    from playground.protocol.findings import FindingSink

__all__ = [
    "CONVERSATIONAL",
    "ROUTES",
    "ROUTE_NAMES",
    "Route",
    "detect_route",
    "find_route",
    "make_decoder",
    "route_for_path",
    "route_for_url",
    "route_of",
]

ROUTES: Final[tuple[Route, ...]] = (
    chat.ROUTE,
    responses.ROUTE,
    messages.ROUTE,
    images.ROUTE,
    speech.ROUTE,
    transcription.ROUTE,
    music.ROUTE,
)
ROUTE_NAMES: Final[tuple[str, ...]] = tuple(r.name for r in ROUTES)
# The chat-like routes (turns, system, tools, reasoning): the ones people compare side by side.
CONVERSATIONAL: Final[tuple[str, ...]] = tuple(r.name for r in ROUTES if r.conversational)

_BY_NAME: Final[dict[str, Route]] = {r.name: r for r in ROUTES}
_BY_EVENT: Final = tuple(r for r in ROUTES if r.event_names or r.event_prefixes)
_BY_SHAPE: Final = tuple(r for r in ROUTES if r.chunk_shaped)


def find_route(name: str) -> Route | None:
    """The route called ``name``, or None (``"auto"``, or an unknown name)."""
    return _BY_NAME.get(name)


def route_of(name: str) -> Route:
    """The route called ``name``; ValueError for an unknown route."""
    found = _BY_NAME.get(name)
    if found is None:
        raise ValueError(f"unknown route {name!r}; expected one of {', '.join(ROUTE_NAMES)}")
    return found


def route_for_path(method: str, path: str) -> str | None:
    """The route whose grammar reads the answer to ``method path``, or None.

    ``path`` is relative to the base URL ending in /v1 (``/images/edits``); a path that still
    starts with ``/v1`` is taken below it, and a query or a trailing slash is ignored.
    """
    rest = path.split("?", 1)[0]
    if rest == "/v1" or rest.startswith("/v1/"):
        rest = rest[3:]
    rest = rest.rstrip("/") or "/"
    for route in ROUTES:
        if route.serves(method, rest):
            return route.name
    return None


def route_for_url(method: str, url: str) -> str | None:
    """The route of a request to ``url``: its path below the last ``/v1`` (a gateway may mount
    the API under a prefix, ``/api/v1``), else the whole path."""
    path = url.split("?", 1)[0]
    if "://" in path:
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    _head, sep, tail = path.rpartition("/v1/")
    return route_for_path(method, "/" + tail if sep else path)


def _owner(name: str) -> str | None:
    for route in _BY_EVENT:
        if route.owns(name):
            return route.name
    return None


def detect_route(event_name: str, payload: Any) -> str | None:
    """The route a decisive event belongs to (SSE name or ``type``, or a chat chunk); else None."""
    if event_name != "message":
        found = _owner(event_name)
        if found is not None:
            return found
    if isinstance(payload, dict):
        kind = payload.get("type")
        if isinstance(kind, str):
            found = _owner(kind)
            if found is not None:
                return found
        if _BY_SHAPE and ("choices" in payload or payload.get("object") == "chat.completion.chunk"):
            return _BY_SHAPE[0].name
    return None


def make_decoder(route: str, sink: FindingSink, asked: Asked | None = None) -> RouteDecoder:
    """A fresh decoder for ``route`` (imported lazily: a chat session never loads the others),
    holding what the request asked for (``asked``)."""
    return route_of(route).make_decoder(sink, asked)
