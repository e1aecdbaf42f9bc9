"""A cell's request: the variant filled with the case's values, built by the route's own body
builder and the transport's one request builder, so the body is what the panels send."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final

from playground.evaluate.suite import Case, Variant
from playground.evaluate.variables import fill, fill_tools, fill_turns
from playground.protocol.params import RequestParams, read_format
from playground.protocol.requests import build_body
from playground.transport.providers import Provider, provider_by_id
from playground.transport.spec import RequestSpec, make_spec

__all__ = ["FAULT_HEADER", "PACE_HEADER", "cell_body", "cell_spec", "filled_params"]

# docs/simulator.md: the simulator reads these per request; make_spec sends them to it only.
FAULT_HEADER: Final = "X-Sim-Fault"
PACE_HEADER: Final = "X-Sim-Pace"

_FIELDS: Final = frozenset(f.name for f in dataclasses.fields(RequestParams)) - {
    "model",
    "stream",
    "system",
    "messages",
    "prompt",
    "tools",
    "extra",
}


def filled_params(variant: Variant, case: Case) -> RequestParams:
    """The editor's fields for this cell: every ``{{name}}`` filled with the case's values."""
    values = case.values()
    turns = fill_turns(variant.messages, values) + fill_turns(case.messages, values)
    prompt = variant.prompt_template
    if prompt is not None:
        turns.append({"role": "user", "content": fill(prompt, values)})
    params = RequestParams(
        model=variant.model,
        stream=True,
        system=fill(variant.system, values) if variant.system else None,
        messages=turns,
        tools=fill_tools(variant.tools, values),
    )
    # As the chat panel's editor starts: usage asked for, so tokens and usage can be scored.
    if variant.route == "chat":
        params.include_usage = True
    for key, value in variant.params.items():
        if key in _FIELDS:
            setattr(params, key, value)
        else:
            params.extra[key] = value
    fmt = variant.response_format
    if fmt is not None and not (
        read_format(params, fmt, nested=True) or read_format(params, fmt, nested=False)
    ):
        params.extra["response_format"] = fmt  # a shape the fields do not hold: sent as written
    return params


def cell_body(variant: Variant, case: Case) -> dict[str, Any]:
    """The JSON body this cell sends (the route's own builder, as the panel's)."""
    return build_body(variant.route, filled_params(variant, case))


def cell_spec(
    variant: Variant,
    case: Case,
    *,
    base_url: str | None,
    key: str | None,
    pace: str | None = None,
    provider: Provider | None = None,
    body: Mapping[str, Any] | None = None,
) -> RequestSpec:
    """The request for this cell at its provider; the case's fault goes to the simulator only."""
    provider = provider or provider_by_id(variant.provider_id)
    headers: dict[str, str] = {}
    if case.fault:
        headers[FAULT_HEADER] = case.fault
    if pace:
        headers[PACE_HEADER] = pace
    spec = make_spec(
        provider,
        variant.route,
        dict(body) if body is not None else cell_body(variant, case),
        key,
        base_url=base_url or variant.base_url,
        sim_headers=headers,
    )
    assert spec is not None  # without a question asked, make_spec always returns a spec
    return spec
