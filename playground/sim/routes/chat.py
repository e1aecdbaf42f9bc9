"""POST /v1/chat/completions: chunks as the seeds show them, usage last, then `data: [DONE]`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from playground.sim import dialogue, prose, structured
from playground.sim.checks import check
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import COMMENT, CONTENT, HEAD, TAIL, TERMINATOR, Frame
from playground.sim.plan import Plan, Tool, dicts, int_or_none, make_plan, text_of
from playground.sim.prompt_cache import CacheFigures, chat_usage_details, serve_cache

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


MAX_CHOICES = 8


def choice_count(body: dict[str, Any]) -> int:
    n = body.get("n", 1)
    return max(1, min(MAX_CHOICES, n)) if isinstance(n, int) and not isinstance(n, bool) else 1


def plan_for(req: SimRequest, variant: int = 0) -> Plan:
    body = req.body
    messages = dicts(body.get("messages"))
    users = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    prompt = users[-1] if users else ""
    said = dialogue.read("chat", body)  # earlier turns, images, every trailing tool result
    schema = structured.requested_schema("chat", body)
    prompt_tokens = sum(prose.count_tokens(text_of(m.get("content"))) + 4 for m in messages) or 1
    limit = int_or_none(body.get("max_completion_tokens")) or int_or_none(body.get("max_tokens"))
    return make_plan(
        prompt=prompt,
        prompt_tokens=prompt_tokens,
        reasoning=wants_reasoning(body, req.model),
        tools=_tools(body),
        tool_choice=body.get("tool_choice"),
        after_tool_result=said.after,
        limit=limit,
        tokens=req.tokens,
        incomplete=req.fault == "incomplete",
        variant=variant,
        lead=said.lead(),
        document=structured.document(schema, prompt) if schema is not None else None,
    )


def usage(plans: list[Plan], cache: CacheFigures | None = None) -> dict[str, Any]:
    out = sum(p.completion_tokens for p in plans)
    prompt = plans[0].prompt_tokens
    return {
        "prompt_tokens": prompt,
        "completion_tokens": out,
        "total_tokens": prompt + out,
        **chat_usage_details(cache),
        "completion_tokens_details": {"reasoning_tokens": sum(len(p.reasoning) for p in plans)},
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
        self, delta: dict[str, Any], finish: str | None = None, index: int = 0, **extra: Any
    ) -> dict[str, Any]:
        choice = {"index": index, "delta": delta, "finish_reason": finish}
        return self.base | {"choices": [choice]} | extra


def _interleave(runs: list[list[Any]]) -> list[tuple[int, Any]]:
    """(choice, piece) taking one piece of each choice in turn, as `n` choices stream."""
    out = []
    for step in range(max((len(r) for r in runs), default=0)):
        out += [(i, run[step]) for i, run in enumerate(runs) if step < len(run)]
    return out


async def frames(req: SimRequest, plans: list[Plan]) -> AsyncIterator[Frame]:
    c = _Chunks(req)
    step = req.pace.token_seconds
    for i in range(len(plans)):
        yield Frame(HEAD, c.chunk({"role": "assistant", "content": ""}, index=i))
    if any(p.reasoning for p in plans):
        # The model "thinks" before its first token: keep-alive comments hold the line open.
        for _ in range(3):
            yield Frame(COMMENT, comment=KEEPALIVE, delay=req.pace.scaled(0.3))
        for k, (i, tok) in enumerate(_interleave([p.reasoning for p in plans])):
            if k and k % 16 == 0:
                yield Frame(COMMENT, comment=KEEPALIVE)
            yield Frame(CONTENT, c.chunk({"reasoning": tok}, index=i), delay=step)
    for i, tok in _interleave([p.text for p in plans]):
        yield Frame(CONTENT, c.chunk({"content": tok}, index=i), delay=step)
    for i, plan in enumerate(plans):
        for index, call in enumerate(plan.tool_calls):
            # id, type and name first; then the arguments in several pieces, matched by index.
            head = {
                "index": index,
                "id": call.call_id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            }
            yield Frame(CONTENT, c.chunk({"tool_calls": [head]}, index=i), delay=step)
            for piece in call.pieces():
                part = {"index": index, "function": {"arguments": piece}}
                yield Frame(CONTENT, c.chunk({"tool_calls": [part]}, index=i), delay=step)
    for i, plan in enumerate(plans):
        yield Frame(TAIL, c.chunk({}, plan.finish, index=i))
    # The last chunk before [DONE] always carries usage (seeds): choices [] with include_usage,
    # otherwise one choice with an empty delta so `chunk.choices[0]` keeps working.
    opts = req.body.get("stream_options")
    if isinstance(opts, dict) and opts.get("include_usage"):
        yield Frame(TAIL, c.base | {"choices": [], "usage": usage(plans, req.cache)})
    else:
        yield Frame(TAIL, c.chunk({}, plans[0].finish, usage=usage(plans, req.cache)))
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


def _message(plan: Plan) -> dict[str, Any]:
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
    return message


def whole(req: SimRequest, plans: list[Plan]) -> dict[str, Any]:
    choices = [
        {"index": i, "message": _message(p), "finish_reason": p.finish} for i, p in enumerate(plans)
    ]
    return {
        "id": req.generation_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": req.model,
        "choices": choices,
        "usage": usage(plans, req.cache),
    }


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early() or check("chat", req.body, req.generation_id)) is not None:
        return early
    # `n` choices: the same question answered n ways, streamed interleaved by choice index.
    plans = [plan_for(req, variant) for variant in range(choice_count(req.body))]
    serve_cache(request, req, "chat", plans)
    if not req.stream or req.wants_json_instead:
        return req.json(whole(req, plans))
    return req.sse(frames(req, plans), route_faults(req))
