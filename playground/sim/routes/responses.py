"""POST /v1/responses: `event:`/`data:` pairs numbered by sequence_number, then a final event."""

from __future__ import annotations

import copy
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from playground.sim import dialogue, prose, structured
from playground.sim.checks import check
from playground.sim.context import SimRequest, new_id
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, HEAD, TAIL, TERMINATOR, Frame
from playground.sim.plan import Plan, Tool, dicts, int_or_none, make_plan, text_of
from playground.sim.prompt_cache import responses_usage_details, serve_cache

SUMMARY_MODES = ("auto", "concise", "detailed")
# (part added, delta, text done, part done) for the two ways of streaming reasoning.
_TEXT = (
    "response.content_part.added",
    "response.reasoning_text.delta",
    "response.reasoning_text.done",
    "response.content_part.done",
)
_SUMMARY = (
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.reasoning_summary_part.done",
)


def _tools(body: dict[str, Any]) -> list[Tool]:
    out = []
    for tool in dicts(body.get("tools")):
        if tool.get("type", "function") == "function":
            name = tool.get("name")
            if isinstance(name, str):
                params = tool.get("parameters") or {}
                out.append(Tool(name, str(tool.get("description") or ""), params))
    return out


def plan_for(req: SimRequest) -> Plan:
    body = req.body
    raw = body.get("input")
    text = raw if isinstance(raw, str) else ""
    items = dicts(raw) if isinstance(raw, list) else [{"role": "user", "content": text}]
    users = [text_of(i.get("content")) for i in items if i.get("role") == "user"]
    prompt = users[-1] if users else ""
    said = dialogue.read("responses", body)  # earlier turns, images, trailing tool results
    schema = structured.requested_schema("responses", body)
    texts = [text_of(i.get("content")) for i in items] + [str(body.get("instructions") or "")]
    reasoning = body.get("reasoning")
    wants = isinstance(reasoning, dict) and reasoning.get("effort") != "none"
    return make_plan(
        prompt=prompt,
        prompt_tokens=sum(prose.count_tokens(t) for t in texts) + 4 * len(items) or 1,
        reasoning=wants or "reason" in req.model,
        tools=_tools(body),
        tool_choice=body.get("tool_choice"),
        after_tool_result=said.after,
        limit=int_or_none(body.get("max_output_tokens")),
        tokens=req.tokens,
        incomplete=req.fault == "incomplete",
        call_prefix="call_",
        lead=said.lead(),
        document=structured.document(schema, prompt) if schema is not None else None,
    )


class _Builder:
    """The response object as it grows, and its output items."""

    def __init__(self, req: SimRequest, plan: Plan) -> None:
        self.req = req
        self.plan = plan
        self.id = "resp_" + req.generation_id.removeprefix("gen-")
        self.created = int(time.time())
        self.output: list[dict[str, Any]] = []
        self.reasoning_id = new_id("rs_")
        self.message_id = new_id("msg_")
        self.call_ids = [new_id("fc_") for _ in plan.tool_calls]

    def response(self, status: str, **extra: Any) -> dict[str, Any]:
        body = self.req.body
        out: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": self.created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": self.req.model,
            "output": copy.deepcopy(self.output),
            "parallel_tool_calls": True,
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
        }
        if isinstance(body.get("reasoning"), dict):
            out["reasoning"] = body["reasoning"]
        return out | extra

    def usage(self) -> dict[str, Any]:
        out = self.plan.completion_tokens
        return {
            "input_tokens": self.plan.prompt_tokens,
            **responses_usage_details(self.req.cache),
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": len(self.plan.reasoning)},
            "total_tokens": self.plan.prompt_tokens + out,
        }

    def final(self) -> tuple[str, dict[str, Any]]:
        if self.plan.finish == "length":
            resp = self.response(
                "incomplete",
                incomplete_details={"reason": "max_output_tokens"},
                usage=self.usage(),
            )
            return "response.incomplete", resp
        return "response.completed", self.response("completed", usage=self.usage())

    @property
    def summary(self) -> bool:
        """`reasoning.summary` asks for a summary of the thinking instead of its text."""
        reasoning = self.req.body.get("reasoning")
        return isinstance(reasoning, dict) and reasoning.get("summary") in SUMMARY_MODES

    def reasoning_item(self, text: str, status: str) -> dict[str, Any]:
        done = status != "in_progress"
        item: dict[str, Any] = {"id": self.reasoning_id, "type": "reasoning", "summary": []}
        if self.summary:
            item["summary"] = [{"type": "summary_text", "text": text}] if done else []
        else:
            item["content"] = [{"type": "reasoning_text", "text": text}] if done else []
        return item | {"status": status}

    def message_item(self, text: str, status: str) -> dict[str, Any]:
        content = (
            [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]
            if status != "in_progress"
            else []
        )
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "status": status,
            "content": content,
        }

    def call_item(self, i: int, arguments: str, status: str) -> dict[str, Any]:
        call = self.plan.tool_calls[i]
        return {
            "id": self.call_ids[i],
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": arguments,
            "status": status,
        }

    def whole(self) -> dict[str, Any]:
        done = "incomplete" if self.plan.finish == "length" else "completed"
        if self.plan.reasoning:
            self.output.append(self.reasoning_item(self.plan.reasoning_text, "completed"))
        if self.plan.text or not self.plan.tool_calls:
            self.output.append(self.message_item(self.plan.answer_text, done))
        for i, call in enumerate(self.plan.tool_calls):
            self.output.append(self.call_item(i, call.arguments, "completed"))
        return self.final()[1]


def _ev(kind: str, data: dict[str, Any], delay: float = 0.0) -> Frame:
    # sequence_number is added when the frame is written (faults.render numbers every event).
    return Frame(kind, data, event=data["type"], delay=delay)


async def frames(req: SimRequest, plan: Plan) -> AsyncIterator[Frame]:
    b = _Builder(req, plan)
    step = req.pace.token_seconds
    yield _ev(HEAD, {"type": "response.created", "response": b.response("in_progress")})
    yield _ev(HEAD, {"type": "response.in_progress", "response": b.response("in_progress")})
    ended = "incomplete" if plan.finish == "length" else "completed"
    if plan.reasoning:
        idx = len(b.output)
        item = b.reasoning_item("", "in_progress")
        yield _ev(HEAD, {"type": "response.output_item.added", "output_index": idx, "item": item})
        # The thinking itself (reasoning_text, the seeds' name) or, when `reasoning.summary` is
        # set, a summary part (reasoning_summary_*), as OpenAI's reasoning models send it.
        kind, names = ("summary_text", _SUMMARY) if b.summary else ("reasoning_text", _TEXT)
        index_key = "summary_index" if b.summary else "content_index"
        addr: dict[str, Any] = {"item_id": b.reasoning_id, "output_index": idx, index_key: 0}
        part: dict[str, Any] = {"type": kind, "text": ""}
        yield _ev(HEAD, {"type": names[0], **addr, "part": part})
        for tok in plan.reasoning:
            yield _ev(CONTENT, {"type": names[1], **addr, "delta": tok}, step)
        text = plan.reasoning_text
        yield _ev(TAIL, {"type": names[2], **addr, "text": text})
        yield _ev(TAIL, {"type": names[3], **addr, "part": {"type": kind, "text": text}})
        b.output.append(b.reasoning_item(text, "completed"))
        yield _ev(
            TAIL, {"type": "response.output_item.done", "output_index": idx, "item": b.output[-1]}
        )
    if plan.text or not plan.tool_calls:
        idx = len(b.output)
        item = b.message_item("", "in_progress")
        yield _ev(HEAD, {"type": "response.output_item.added", "output_index": idx, "item": item})
        addr = {"item_id": b.message_id, "output_index": idx, "content_index": 0}
        part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        yield _ev(HEAD, {"type": "response.content_part.added", **addr, "part": part})
        for tok in plan.text:
            delta = {"type": "response.output_text.delta", **addr, "delta": tok, "logprobs": []}
            yield _ev(CONTENT, delta, step)
        text = plan.answer_text
        yield _ev(TAIL, {"type": "response.output_text.done", **addr, "text": text, "logprobs": []})
        part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
        yield _ev(TAIL, {"type": "response.content_part.done", **addr, "part": part})
        b.output.append(b.message_item(text, ended))
        yield _ev(
            TAIL, {"type": "response.output_item.done", "output_index": idx, "item": b.output[-1]}
        )
    for i, call in enumerate(plan.tool_calls):
        idx = len(b.output)
        item = b.call_item(i, "", "in_progress")
        yield _ev(HEAD, {"type": "response.output_item.added", "output_index": idx, "item": item})
        addr = {"item_id": b.call_ids[i], "output_index": idx}
        for piece in call.pieces():
            yield _ev(
                CONTENT,
                {"type": "response.function_call_arguments.delta", **addr, "delta": piece},
                step,
            )
        yield _ev(
            TAIL,
            {
                "type": "response.function_call_arguments.done",
                **addr,
                "name": call.name,
                "arguments": call.arguments,
            },
        )
        b.output.append(b.call_item(i, call.arguments, "completed"))
        yield _ev(
            TAIL, {"type": "response.output_item.done", "output_index": idx, "item": b.output[-1]}
        )
    name, resp = b.final()
    yield _ev(TERMINATOR, {"type": name, "response": resp})


def route_faults(req: SimRequest, plan: Plan) -> RouteFaults:
    b = _Builder(req, plan)

    def error_tail() -> list[Frame]:
        # Seeds: an `error` event, then `response.failed`. The error is nested, as real OpenAI
        # streams send it (captures/responses/openai-gpt5nano-error-then-failed).
        err = {
            "type": "server_error",
            "code": "server_error",
            "message": MIDSTREAM_MESSAGE,
            "param": None,
        }
        failed = b.response("failed", error={"code": "server_error", "message": MIDSTREAM_MESSAGE})
        return [
            _ev(TERMINATOR, {"type": "error", "error": err}),
            _ev(TERMINATOR, {"type": "response.failed", "response": failed}),
        ]

    def unknown(n: int) -> Frame:
        return _ev(
            CONTENT, {"type": "response.sim_annotation.added", "note": "unknown event", "n": n}
        )

    return RouteFaults(error_tail, unknown, sequenced=True, held_heads=2)


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early() or check("responses", req.body, req.generation_id)) is not None:
        return early
    plan = plan_for(req)
    serve_cache(request, req, "responses", [plan])
    if not req.stream or req.wants_json_instead:
        return req.json(_Builder(req, plan).whole())
    return req.sse(frames(req, plan), route_faults(req, plan))
