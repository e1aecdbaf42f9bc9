"""POST /v1/messages: Anthropic's events with `event:` lines, blocks, cumulative usage."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from playground.sim import dialogue, json_depth, prose, structured
from playground.sim.checks import check
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, HEAD, TAIL, TERMINATOR, Frame
from playground.sim.plan import Plan, Tool, dicts, int_or_none, make_plan, text_of
from playground.sim.prompt_cache import messages_usage, serve_cache

PING_EVERY = 25  # a ping "now and then" (seeds: ping events can appear anywhere)
_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def _tools(body: dict[str, Any]) -> list[Tool]:
    out = []
    for tool in dicts(body.get("tools")):
        if isinstance(tool.get("name"), str):
            schema = tool.get("input_schema") or {}
            out.append(Tool(tool["name"], str(tool.get("description") or ""), schema))
    return out


def plan_for(req: SimRequest) -> Plan:
    body = req.body
    messages = dicts(body.get("messages"))
    users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    prompts = [u for u in users if u]
    prompt = prompts[-1] if prompts else ""
    said = dialogue.read("messages", body)  # earlier turns, images, trailing tool results
    schema = structured.requested_schema("messages", body)
    system = text_of(body.get("system")) if body.get("system") else ""
    thinking = body.get("thinking")
    wants = isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "auto":
        choice = None
    return make_plan(
        prompt=prompt,
        prompt_tokens=sum(prose.count_tokens(u) + 4 for u in users) + prose.count_tokens(system)
        or 1,
        reasoning=wants,
        tools=_tools(body),
        tool_choice=choice,
        after_tool_result=said.after,
        limit=int_or_none(body.get("max_tokens")),
        tokens=req.tokens,
        incomplete=req.fault == "incomplete",
        preface=True,
        call_prefix="toolu_",
        lead=said.lead(),
        document=structured.document(schema, prompt) if schema is not None else None,
    )


def signature(text: str) -> str:
    """An opaque, stable signature for a thinking block (real ones are encrypted blobs)."""
    return base64.b64encode(hashlib.sha512(text.encode()).digest() * 2).decode()


def _ev(kind: str, data: dict[str, Any], delay: float = 0.0) -> Frame:
    # Anthropic's SDK routes on the SSE `event:` name, which equals data.type (docs/protocol.md §4).
    return Frame(kind, data, event=data["type"], delay=delay)


def _message(req: SimRequest, plan: Plan, msg_id: str) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": req.model,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**messages_usage(req.cache, plan.prompt_tokens), "output_tokens": 1},
    }


async def frames(req: SimRequest, plan: Plan) -> AsyncIterator[Frame]:
    msg_id = "msg_" + req.generation_id.removeprefix("gen-")
    step = req.pace.token_seconds
    yield _ev(HEAD, {"type": "message_start", "message": _message(req, plan, msg_id)})
    yield _ev(HEAD, {"type": "ping"})
    index = 0
    sent = 0

    def ping() -> bool:
        nonlocal sent
        sent += 1
        return sent % PING_EVERY == 0

    block: dict[str, Any]
    if plan.reasoning:
        block = {"type": "thinking", "thinking": "", "signature": ""}
        yield _ev(HEAD, {"type": "content_block_start", "index": index, "content_block": block})
        for tok in plan.reasoning:
            delta = {"type": "thinking_delta", "thinking": tok}
            yield _ev(
                CONTENT, {"type": "content_block_delta", "index": index, "delta": delta}, step
            )
            if ping():
                yield _ev(CONTENT, {"type": "ping"})
        # The signature comes just before the block's stop (docs/protocol.md §4).
        sig = {"type": "signature_delta", "signature": signature(plan.reasoning_text)}
        yield _ev(TAIL, {"type": "content_block_delta", "index": index, "delta": sig})
        yield _ev(TAIL, {"type": "content_block_stop", "index": index})
        index += 1
    text = plan.preface + plan.text
    if text or not plan.tool_calls:
        block = {"type": "text", "text": ""}
        yield _ev(HEAD, {"type": "content_block_start", "index": index, "content_block": block})
        for tok in text:
            delta = {"type": "text_delta", "text": tok}
            yield _ev(
                CONTENT, {"type": "content_block_delta", "index": index, "delta": delta}, step
            )
            if ping():
                yield _ev(CONTENT, {"type": "ping"})
        yield _ev(TAIL, {"type": "content_block_stop", "index": index})
        index += 1
    for call in plan.tool_calls:
        block = {"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}}
        yield _ev(HEAD, {"type": "content_block_start", "index": index, "content_block": block})
        for piece in ["", *call.pieces()]:  # Anthropic opens with an empty partial_json
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield _ev(
                CONTENT, {"type": "content_block_delta", "index": index, "delta": delta}, step
            )
        yield _ev(TAIL, {"type": "content_block_stop", "index": index})
        index += 1
    stop = _STOP[plan.finish]
    # Cumulative usage: overwrite, never add (docs/protocol.md §4).
    usage = {
        **messages_usage(req.cache, plan.prompt_tokens),
        "output_tokens": plan.completion_tokens,
    }
    yield _ev(
        TAIL,
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": usage,
        },
    )
    yield _ev(TERMINATOR, {"type": "message_stop"})


def route_faults(req: SimRequest) -> RouteFaults:
    def error_tail() -> list[Frame]:
        # Seeds: an `error` event (api_error), then `message_stop`.
        err = {
            "type": "error",
            "error": {"type": "api_error", "message": MIDSTREAM_MESSAGE},
            "request_id": req.generation_id,
        }
        return [_ev(TERMINATOR, err), _ev(TERMINATOR, {"type": "message_stop"})]

    def unknown(n: int) -> Frame:
        return _ev(CONTENT, {"type": "sim_annotation", "note": "unknown event", "n": n})

    return RouteFaults(error_tail, unknown)


def whole(req: SimRequest, plan: Plan) -> dict[str, Any]:
    msg = _message(req, plan, "msg_" + req.generation_id.removeprefix("gen-"))
    content: list[dict[str, Any]] = []
    if plan.reasoning:
        content.append(
            {
                "type": "thinking",
                "thinking": plan.reasoning_text,
                "signature": signature(plan.reasoning_text),
            }
        )
    if plan.answer_text or not plan.tool_calls:
        content.append({"type": "text", "text": plan.answer_text})
    for call in plan.tool_calls:
        content.append(
            {
                "type": "tool_use",
                "id": call.call_id,
                "name": call.name,
                "input": json_depth.loads(call.arguments),
            }
        )
    msg["content"] = content
    msg["stop_reason"] = _STOP[plan.finish]
    msg["usage"]["output_tokens"] = plan.completion_tokens
    return msg


async def handle(request: Request) -> Response:
    # x-api-key + anthropic-version, a Bearer token, or no key at all: all accepted (local).
    req = await SimRequest.read(request)
    early = req.early(anthropic=True) or check("messages", req.body, req.generation_id)
    if early is not None:
        return early
    plan = plan_for(req)
    serve_cache(request, req, "messages", [plan])
    if not req.stream or req.wants_json_instead:
        return req.json(whole(req, plan))
    return req.sse(frames(req, plan), route_faults(req))
