"""The counting endpoints: ``POST /v1/responses/input_tokens`` (OpenAI's shape) and
``POST /v1/messages/count_tokens`` (Anthropic's), counted as the prompt cache counts a prompt."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from playground.sim.cache_prefix import prefix_of
from playground.sim.context import SimRequest


async def handle_responses(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    tokens = prefix_of("responses", req.body).tokens
    return req.json({"object": "response.input_tokens", "input_tokens": tokens})


async def handle_messages(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early(anthropic=True)) is not None:
        return early
    return req.json({"input_tokens": prefix_of("messages", req.body).tokens})
