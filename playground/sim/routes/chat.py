"""POST /v1/chat/completions: chunks as the seeds show them, usage last, then `data: [DONE]`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from playground.sim import prose
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import COMMENT, CONTENT, HEAD, TAIL, TERMINATOR, Frame
from playground.sim.plan import Plan, Tool, dicts, int_or_none, make_plan, text_of

KEEPALIVE = "keep-alive"


def _tools(body: dict[str, Any]) -> list[Tool]:
    out = []
    for tool in dicts(body.get("tools")):
        fn = tool.get("function")
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            params = fn.get("parameters")
            out.append(Tool(fn["name"], str(fn.get("description") or ""), params or {}))
    return out


def wants_reasoning(body: dict[str, Any], model: str) -> bool:
    effort = body.get("reasoning_effort")
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict):
        return not (reasoning.get("enabled") is False or reasoning.get("effort") == "none")
    if isinstance(effort, str):
        return effort != "none"
    return "reason" in model or "think" in model


def plan_for(req: SimRequest) -> Plan:
    body = req.body
    messages = dicts(body.get("messages"))
    users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    prompt = users[-1] if users else ""
    after = (
        text_of(messages[-1].get("content"))
        if messages and messages[-1].get("role") == "tool"
        else None
    )
    prompt_tokens = sum(prose.count_tokens(text_of(m.get("content"))) + 4 for m in messages) or 1
    limit = int_or_none(body.get("max_completion_tokens")) or int_or_none(body.get("max_tokens"))
    return make_plan(
        prompt=prompt,
        prompt_tokens=prompt_tokens,
        reasoning=wants_reasoning(body, req.model),
        tools=_tools(body),
        tool_choice=body.get("tool_choice"),
        after_tool_result=after,
        limit=limit,
        tokens=req.tokens,
        incomplete=req.fault == "incomplete",
    )


def usage(plan: Plan) -> dict[str, Any]:
    out = plan.completion_tokens
    return {
        "prompt_tokens": plan.prompt_tokens,
        "completion_tokens": out,
        "total_tokens": plan.prompt_tokens + out,
        "completion_tokens_details": {"reasoning_tokens": len(plan.reasoning)},
    }


class _Chunks:
    """Builds chunks that share the stream's id, created time and model."""

    def __init__(self, req: SimRequest) -> None:
        self.base = {
            "id": req.generation_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": req.model,
        }

    def chunk(
        self, delta: dict[str, Any], finish: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return self.base | {"choices": [choice]} | extra


async def frames(req: SimRequest, plan: Plan) -> AsyncIterator[Frame]:
    c = _Chunks(req)
    step = req.pace.token_seconds
    yield Frame(HEAD, c.chunk({"role": "assistant", "content": ""}))
    if plan.reasoning:
        # The model "thinks" before its first token: keep-alive comments hold the line open.
        for _ in range(3):
            yield Frame(COMMENT, comment=KEEPALIVE, delay=req.pace.scaled(0.3))
        for i, tok in enumerate(plan.reasoning):
            if i and i % 16 == 0:
                yield Frame(COMMENT, comment=KEEPALIVE)
            yield Frame(CONTENT, c.chunk({"reasoning": tok}), delay=step)
    for tok in plan.text:
        yield Frame(CONTENT, c.chunk({"content": tok}), delay=step)
    for index, call in enumerate(plan.tool_calls):
        # id, type and name first; then the arguments in several pieces, matched by index.
        head = {
            "index": index,
            "id": call.call_id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        yield Frame(CONTENT, c.chunk({"tool_calls": [head]}), delay=step)
        for piece in call.pieces():
            part = {"index": index, "function": {"arguments": piece}}
            yield Frame(CONTENT, c.chunk({"tool_calls": [part]}), delay=step)
    yield Frame(TAIL, c.chunk({}, plan.finish))
    # The last chunk before [DONE] always carries usage (seeds): choices [] with include_usage,
    # otherwise one choice with an empty delta so `chunk.choices[0]` keeps working.
    opts = req.body.get("stream_options")
    if isinstance(opts, dict) and opts.get("include_usage"):
        yield Frame(TAIL, c.base | {"choices": [], "usage": usage(plan)})
    else:
        yield Frame(TAIL, c.chunk({}, plan.finish, usage=usage(plan)))
    yield Frame(TERMINATOR, "[DONE]")


def route_faults(req: SimRequest) -> RouteFaults:
    c = _Chunks(req)

    def error_tail() -> list[Frame]:
        # Seeds: a chunk with `error` (the usual envelope) and finish_reason "error", then [DONE].
        err = {
            "code": 500,
            "message": MIDSTREAM_MESSAGE,
            "type": "server_error",
            "metadata": {"error_type": "server"},
        }
        return [Frame(TAIL, c.chunk({}, "error", error=err)), Frame(TERMINATOR, "[DONE]")]

    def unknown(n: int) -> Frame:
        return Frame(
            CONTENT,
            c.chunk({}, sim_annotation={"note": "unknown event", "n": n}),
            event="sim.annotation",
        )

    return RouteFaults(error_tail, unknown)


def whole(req: SimRequest, plan: Plan) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": plan.answer_text or None}
    if plan.reasoning:
        message["reasoning"] = plan.reasoning_text
    if plan.tool_calls:
        message["tool_calls"] = [
            {
                "id": c.call_id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for c in plan.tool_calls
        ]
    return {
        "id": req.generation_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": req.model,
        "choices": [{"index": 0, "message": message, "finish_reason": plan.finish}],
        "usage": usage(plan),
    }


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    plan = plan_for(req)
    if not req.stream or req.wants_json_instead:
        return req.json(whole(req, plan))
    return req.sse(frames(req, plan), route_faults(req))
