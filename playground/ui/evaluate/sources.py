"""Variants and variables taken from what the window holds: a panel's request or a preset's body.

Plain data in, plain data out (a variant's JSON as the suite file writes it): the suite's own
reader checks the result when the grid runs.
"""

from __future__ import annotations

from typing import Any, Final

from playground.evaluate.model import CONVERSATIONAL_ROUTES
from playground.evaluate.variables import names_in, names_in_value
from playground.protocol.params import RequestParams

__all__ = ["VARIANT_PARAMS", "variables_of", "variant_from_params"]

# The editor's parameters a variant carries by name (docs/evaluate.md, "Variants").
VARIANT_PARAMS: Final = (
    "temperature", "top_p", "max_tokens", "stop", "seed", "reasoning_effort", "thinking_budget",
    "tool_choice", "include_usage",
)  # fmt: skip


def variables_of(params: RequestParams) -> list[str]:
    """The ``{{name}}`` variables the request uses: system, thread, tools, message box."""
    found: dict[str, None] = {}
    found.update(dict.fromkeys(names_in(params.system)))
    found.update(dict.fromkeys(names_in_value(params.messages)))
    found.update(dict.fromkeys(names_in_value(params.tools)))
    found.update(dict.fromkeys(names_in(params.prompt)))
    return list(found)


def variant_from_params(
    name: str, route: str, params: RequestParams, provider: str | None = None
) -> dict[str, Any]:
    """A variant's JSON from a request as the editor holds it; ValueError for a route a variant
    cannot be on (images, speech, ...)."""
    if route not in CONVERSATIONAL_ROUTES:
        raise ValueError(f"a variant is a chat, responses or messages request, not {route}")
    chosen = {k: getattr(params, k) for k in VARIANT_PARAMS if getattr(params, k) is not None}
    variant: dict[str, Any] = {"name": name, "route": route, "model": params.model}
    if params.system:
        variant["system"] = params.system
    if params.prompt is not None:
        variant["prompt"] = params.prompt
    if params.messages:
        variant["messages"] = [dict(m) for m in params.messages]
    if chosen:
        variant["params"] = chosen
    if params.tools:
        variant["tools"] = [dict(t) for t in params.tools]
    if provider and provider != "simulator":
        variant["provider"] = provider
    return variant
