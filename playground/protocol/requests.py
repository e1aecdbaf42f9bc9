"""Request bodies per route from what a person sets in the editor, and back; pure.

The names other layers have always imported from here; each route's own body lives in its
descriptor (``protocol/routes/<name>.py``), the shared pieces in ``protocol/params.py``.
"""

from __future__ import annotations

from typing import Any

from playground.protocol.params import (
    SAMPLE_TOOL,
    RequestParams,
    form_fields,
    to_anthropic_tool,
    to_anthropic_tool_choice,
    to_responses_tool,
    to_responses_tool_choice,
)
from playground.protocol.routes import ROUTE_NAMES, ROUTES, Route, route_of

__all__ = [
    "ROUTES",
    "ROUTE_NAMES",
    "SAMPLE_TOOL",
    "RequestParams",
    "RouteSpec",
    "build_body",
    "edit_fields",
    "edit_url",
    "form_fields",
    "params_from_body",
    "route_spec",
    "to_anthropic_tool",
    "to_anthropic_tool_choice",
    "to_responses_tool",
    "to_responses_tool_choice",
]

RouteSpec = Route  # the descriptor's former name, kept for the callers that spell it so


def route_spec(name: str) -> Route:
    """The route called ``name``; ValueError for an unknown route."""
    return route_of(name)


def build_body(route: str, params: RequestParams) -> dict[str, Any]:
    """The JSON body (or, for transcription, the form fields) that ``route`` expects."""
    return route_of(route).build_body(params)


def params_from_body(route: str, body: dict[str, Any]) -> RequestParams:
    """Editor fields from a route's body (the raw JSON view); what has no field goes to ``extra``.

    ``build_body(route, params_from_body(route, b)) == b`` for every body ``build_body`` makes.
    """
    return route_of(route).params_from_body(body)


# OpenAI: "POST /images/edits ... multipart/form-data"; the edit is the generations route's
# sibling (docs/protocol.md §5): a gateway that serves one at .../generations has the other.
EDIT_PATH = "/images/edits"


def edit_url(generations_url: str) -> str:
    """The edits URL beside an images ``generations`` URL (the same base, ``/edits``)."""
    base, sep, _tail = generations_url.rpartition("/generations")
    return base + "/edits" if sep else generations_url.rstrip("/") + "/edits"


def edit_fields(body: dict[str, Any]) -> dict[str, str]:
    """An images body as the edit's multipart fields (prompt, size, quality, n,
    output_format, stream, partial_images, and whatever rides along), as form strings."""
    return form_fields({k: v for k, v in body.items() if k not in ("image", "mask")})
