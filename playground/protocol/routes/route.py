"""The ``Route`` descriptor: everything the program knows about one route, in one value.

A route is its path and method, how its stream is recognised (the event names it owns, or chat's
chunk shape), what ends it (docs/protocol.md §0, see terminators.py), its request body both ways,
and its decoder, named by module so that a chat session never imports the other routes' decoders.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from playground.protocol.params import RequestParams

if TYPE_CHECKING:  # the registry is read at startup; orjson, decoders, state load with a stream
    from playground.protocol.asked import Asked
    from playground.protocol.decoders.base import RouteDecoder
    from playground.protocol.findings import FindingSink

__all__ = ["DonePolicy", "Route", "fits", "take"]

# What ``data: [DONE]`` means on a route (terminators.py reports it):
#   "ends"     it is the terminator (chat: seed "Streaming events" ends with data: [DONE])
#   "ends_job" it ends the job's progress stream (music, docs/simulator.md)
#   "outside"  not part of the grammar, never taken as the end (responses, messages)
#   "after"    gateways send one after the final event; harmless (images, speech, transcription)
DonePolicy = Literal["ends", "ends_job", "outside", "after"]

_MISSING = object()


# The JSON types each editor field holds: a hand-typed body's value of another type stays in
# ``extra`` (sent as typed), so the form never shows a number field a string.
_NUMBER: Final = (int, float)
_KINDS: Final[dict[str, tuple[type, ...]]] = {
    "temperature": _NUMBER,
    "top_p": _NUMBER,
    "frequency_penalty": _NUMBER,
    "presence_penalty": _NUMBER,
    "seed": (int,),
    "parallel_tool_calls": (bool,),
    "speed": _NUMBER,
    "duration": _NUMBER,
    "max_tokens": (int,),
    "n": (int,),
    "partial_images": (int,),
    "thinking_budget": (int,),
    "tools": (list,),
    "tool_choice": (str, dict),
}


def fits(attr: str, value: Any) -> bool:
    """Whether ``value`` has the JSON type of the editor field ``attr`` (strings by default)."""
    if attr == "stop":  # a list of strings (one string rides along as typed)
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    kinds = _KINDS.get(attr, (str,))
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)


def take(rest: dict[str, Any], params: RequestParams, key: str, attr: str | None = None) -> None:
    """Move ``rest[key]`` onto ``params.<attr or key>`` when it is there with the field's type."""
    name = attr or key
    if key in rest and fits(name, rest[key]):
        setattr(params, name, rest.pop(key))


def _path_matches(pattern: str, path: str) -> bool:
    want, got = pattern.split("/"), path.split("/")
    return len(want) == len(got) and all(
        w == g or (w == "{id}" and bool(g)) for w, g in zip(want, got, strict=True)
    )


@dataclass(frozen=True, slots=True)
class Route:
    """One route of the gateway; ``ROUTES`` in ``protocol/routes`` is the tuple of them."""

    name: str
    title: str
    path: str  # relative to a base URL ending in /v1
    method: str
    sse: bool  # the route streams server-sent events when asked to stream
    multipart: bool  # the body is multipart/form-data (a file upload), not JSON
    decoder: str  # "module:Class" of its RouteDecoder, imported on first use
    build: Callable[[RequestParams], dict[str, Any]]  # the body, before ``extra`` is merged
    read: Callable[[dict[str, Any], RequestParams], None]  # moves known keys of a body to fields
    terminator: str | None  # what ends the stream, as a finding names it
    done: DonePolicy
    event_names: frozenset[str] = frozenset()  # SSE names / data.type values only it uses
    event_prefixes: tuple[str, ...] = ()
    chunk_shaped: bool = False  # recognised by its chunk's shape (chat: choices / object)
    conversational: bool = False  # turns, system, tools, reasoning: the chat-like editors
    audio_body: bool = False  # may answer with raw audio bytes instead of events
    stream_key: bool = True  # the body says ``stream`` (speech says ``stream_format``)
    # Other (method, path) pairs whose answers this route's grammar reads; ``{id}`` matches one
    # path segment (a job id). The proxy, ``inspect`` and the window all ask ``route_for_path``.
    other_paths: tuple[tuple[str, str], ...] = ()

    def serves(self, method: str, path: str) -> bool:
        """Whether ``method path`` (relative to the base URL ending in /v1) is this route's."""
        method = method.upper()
        if method == self.method and path == self.path:
            return True
        return any(method == m and _path_matches(pattern, path) for m, pattern in self.other_paths)

    def owns(self, name: str) -> bool:
        """Whether an SSE event name or ``data.type`` value belongs to this route."""
        return name in self.event_names or (
            bool(self.event_prefixes) and name.startswith(self.event_prefixes)
        )

    def build_body(self, params: RequestParams) -> dict[str, Any]:
        """The JSON body (or, for multipart routes, the form fields) the route expects."""
        body = self.build(params)
        body.update(copy.deepcopy(params.extra))
        return body

    def params_from_body(self, body: dict[str, Any]) -> RequestParams:
        """Editor fields from a body (the raw JSON view); what has no field goes to ``extra``.

        ``build_body(params_from_body(b)) == b`` for every body ``build_body`` makes, and a
        known key whose value the fields would not reproduce rides along in ``extra`` too, so a
        body typed in the raw view survives a later edit of the form unchanged.
        """
        rest = copy.deepcopy(body)
        p = RequestParams(model=str(rest.pop("model", "") or ""))
        if self.stream_key:
            if "stream" in rest and isinstance(rest["stream"], bool | str):
                value = rest.pop("stream")
                p.stream = value is True or value == "true"
            else:
                # build_body always writes stream; its absence means a plain answer
                p.stream = False
        self.read(rest, p)
        p.extra = rest
        try:
            rebuilt = self.build_body(p)
        except Exception:  # a hand-typed body of odd types: keep it all as typed
            rebuilt = {}
        for key, value in body.items():
            if key not in p.extra and rebuilt.get(key, _MISSING) != value:
                p.extra[key] = copy.deepcopy(value)
        return p

    def make_decoder(self, sink: FindingSink, asked: Asked | None = None) -> RouteDecoder:
        """A fresh decoder for this route, its module imported now (lazily)."""
        module, _, cls = self.decoder.partition(":")
        factory: Callable[[FindingSink, Asked], RouteDecoder] = getattr(
            importlib.import_module(module), cls
        )
        if asked is None:
            from playground.protocol.asked import NOTHING_ASKED

            asked = NOTHING_ASKED
        return factory(sink, asked)
