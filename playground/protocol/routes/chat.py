"""The chat completions route: path, recognition by chunk shape, ``[DONE]`` terminator, body."""

from __future__ import annotations

import copy
from typing import Any

from playground.protocol.params import (
    RequestParams,
    conversation,
    format_of,
    put,
    read_format,
    take_turns,
)
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]

# Chat keeps ``max_tokens``, the name the gateway's chat schema gives (docs/protocol.md §7, Vultr);
# OpenAI's newer ``max_completion_tokens`` typed into the body rides along as typed.
_KEYS = (
    "temperature",
    "top_p",
    "max_tokens",
    "stop",
    "seed",
    "frequency_penalty",
    "presence_penalty",
    "reasoning_effort",
    "n",
)


def build(p: RequestParams) -> dict[str, Any]:
    turns = conversation(p)
    if p.system:
        turns.insert(0, {"role": "system", "content": p.system})
    body: dict[str, Any] = {"model": p.model, "messages": turns, "stream": p.stream}
    for key in _KEYS:
        put(body, key, copy.deepcopy(getattr(p, key)))
    if p.tools:
        body["tools"] = copy.deepcopy(p.tools)
        put(body, "tool_choice", copy.deepcopy(p.tool_choice))
        # OpenAI refuses parallel_tool_calls without tools.
        put(body, "parallel_tool_calls", p.parallel_tool_calls)
    put(body, "response_format", format_of(p, nested=True))
    if p.stream and p.include_usage is not None:
        # stream_options is only valid with stream: true (OpenAI rejects it otherwise).
        body["stream_options"] = {"include_usage": p.include_usage}
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    turns = rest.get("messages")
    if isinstance(turns, list) and all(isinstance(t, dict) for t in turns):
        rest.pop("messages")
        if turns and turns[0].get("role") == "system" and isinstance(turns[0].get("content"), str):
            p.system = turns[0]["content"]
            turns = turns[1:]
        take_turns(p, turns)
    for key in _KEYS:
        take(rest, p, key)
    if p.seed is not None and not 0 <= p.seed < 2**31:
        rest["seed"] = p.seed  # beyond the form's field: it rides along as typed
        p.seed = None
    if isinstance(rest.get("tools"), list) and rest["tools"]:
        take(rest, p, "tools")
        take(rest, p, "tool_choice")
        take(rest, p, "parallel_tool_calls")
    if read_format(p, rest.get("response_format"), nested=True):
        rest.pop("response_format")
    options = rest.get("stream_options")
    if p.stream and isinstance(options, dict) and set(options) == {"include_usage"}:
        p.include_usage = bool(rest.pop("stream_options")["include_usage"])


# Path from the seed page "Streaming events"; its stream is chunks that name no event type, so
# it is recognised by shape (``choices`` or ``object: chat.completion.chunk``).
ROUTE = Route(
    name="chat",
    title="Chat completions",
    path="/chat/completions",
    method="POST",
    sse=True,
    multipart=False,
    decoder="playground.protocol.decoders.chat:ChatDecoder",
    build=build,
    read=read,
    terminator="data: [DONE]",
    done="ends",
    chunk_shaped=True,
    conversational=True,
)
