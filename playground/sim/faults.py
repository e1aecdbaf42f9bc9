"""Faults on demand (`X-Sim-Fault`): errors before the stream, and damage injected into it."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from starlette.responses import JSONResponse, Response

from playground.sim.fault_names import FAULTS
from playground.sim.framing import CONTENT, HEAD, TAIL, TERMINATOR, Frame, encode
from playground.sim.pace import Schedule

# status -> (OpenAI-style type, OpenRouter metadata.error_type, Anthropic error type, message).
# Envelopes follow docs/protocol.md §2 (OpenAI), §7 (OpenRouter/Vultr: code = status,
# metadata.error_type)
# and §4 (Anthropic: {"type":"error","error":{type,message},"request_id"}).
_HTTP: dict[int, tuple[str, str, str, str]] = {
    400: (
        "invalid_request_error",
        "invalid_request",
        "invalid_request_error",
        "Invalid request: 'messages' must not be empty (simulated)",
    ),
    401: (
        "authentication_error",
        "authentication",
        "authentication_error",
        "Invalid API key (simulated)",
    ),
    403: (
        "permission_error",
        "content_policy_violation",
        "permission_error",
        "The request was blocked by a guardrail (simulated)",
    ),
    404: ("not_found_error", "not_found", "not_found_error", "Model not found (simulated)"),
    408: ("timeout_error", "timeout", "timeout_error", "Request timed out (simulated)"),
    413: (
        "invalid_request_error",
        "payload_too_large",
        "request_too_large",
        "Request too large (simulated)",
    ),
    422: (
        "invalid_request_error",
        "unprocessable",
        "invalid_request_error",
        "Unsupported reasoning_effort for this model (simulated)",
    ),
    429: (
        "rate_limit_error",
        "rate_limit_exceeded",
        "rate_limit_error",
        "Rate limit exceeded (simulated)",
    ),
    500: ("server_error", "server", "api_error", "Internal server error (simulated)"),
    502: (
        "server_error",
        "provider_unavailable",
        "api_error",
        "The model could not be reached (simulated)",
    ),
    503: ("server_error", "provider_overloaded", "overloaded_error", "Overloaded (simulated)"),
    504: ("timeout_error", "timeout", "timeout_error", "The model timed out (simulated)"),
}
RETRY_AFTER_SECONDS = "1"
MIDSTREAM_MESSAGE = "The model stopped unexpectedly (simulated mid-stream error)"


def parse_fault(value: str | None) -> str:
    raw = (value or "none").strip().lower()
    return raw if raw in FAULTS else "none"


def http_status(fault: str) -> int | None:
    if fault.startswith("http-"):
        return int(fault.removeprefix("http-"))
    return None


def error_response(fault: str, *, anthropic: bool, generation_id: str) -> Response | None:
    """The answer to a fault that fails before the stream, or None when the stream goes on."""
    if fault == "no-key":
        # The gateway's bare unauthenticated body, with no envelope (docs/protocol.md §7, Vultr).
        return JSONResponse({"message": "No API key provided"}, status_code=401)
    if fault == "non-json-error":
        html = (
            "<html><head><title>502 Bad Gateway</title></head>\n<body>Bad Gateway</body></html>\n"
        )
        return Response(html, status_code=502, media_type="text/html")
    if fault == "empty-error":
        return Response(b"", status_code=500)
    status = http_status(fault)
    if status is None:
        return None
    oa_type, or_type, ant_type, message = _HTTP[status]
    headers = {"X-Generation-Id": generation_id}
    if status in (429, 503):
        headers["Retry-After"] = RETRY_AFTER_SECONDS
    if anthropic:
        body: dict[str, object] = {
            "type": "error",
            "error": {"type": ant_type, "message": message},
            "request_id": generation_id,
        }
    else:
        body = {
            "error": {
                "code": status,
                "message": message,
                "type": oa_type,
                "param": None,
                "metadata": {"error_type": or_type},
            }
        }
    return JSONResponse(body, status_code=status, headers=headers)


class DropConnection(Exception):
    """Raised inside a stream to make the server close the socket mid-body (fault "drop")."""


@dataclass(slots=True)
class RouteFaults:
    """What a route contributes to fault injection."""

    error_tail: Callable[[], list[Frame]]  # midstream-error: the route's last frames (seeds' table)
    unknown: Callable[[int], Frame]  # unknown-events: an event type no client knows
    trigger_after: int = 6  # content frames sent before the fault strikes
    sequenced: bool = False  # number dict payloads with sequence_number from 0 (Responses)
    held_heads: int = 1  # out-of-order: how many opening frames to send after the first content


@dataclass(slots=True)
class StreamFaults:
    fault: str
    stall_seconds: float


_GARBAGE = bytes(range(0x80, 0x100)) + b"\x00\x01\x02\xff\xfe\xfd garbage \xc3\x28\xa0\xa1"
_HUGE = 10 * 1024 * 1024


_active = 0


def active_streams() -> int:
    """How many streams are being written right now (tests check that a disconnect ends one)."""
    return _active


async def render(
    frames: AsyncIterator[Frame], route: RouteFaults, faults: StreamFaults
) -> AsyncIterator[bytes]:
    """Write the route's frames one body chunk each, paced, with the chosen fault applied."""
    global _active
    _active += 1
    try:
        async for chunk in _render(frames, route, faults):
            yield chunk
    finally:
        # A client disconnect cancels the response task: this runs, and the route's
        # generator is closed with it, so nothing keeps producing for a reader who left.
        _active -= 1
        await frames.aclose()  # type: ignore[attr-defined]


async def _render(
    frames: AsyncIterator[Frame], route: RouteFaults, faults: StreamFaults
) -> AsyncIterator[bytes]:
    fault = faults.fault
    seq = 0
    content_seen = 0
    fired = False
    held: list[Frame] = []
    last_content: Frame | None = None
    unknown_n = 0

    def out(frame: Frame) -> bytes:
        nonlocal seq
        if route.sequenced and isinstance(frame.data, dict):
            # Numbered from 0 as written, right after `type` (docs/protocol.md §3).
            rest = {k: v for k, v in frame.data.items() if k not in ("type", "sequence_number")}
            frame.data = {"type": frame.data.get("type"), "sequence_number": seq, **rest}
            seq += 1
        return encode(frame)

    def unknown() -> bytes:
        nonlocal unknown_n
        unknown_n += 1
        return out(route.unknown(unknown_n))

    clock = asyncio.get_running_loop().time
    schedule = Schedule(clock())
    async for frame in frames:
        if frame.delay > 0:
            wait = schedule.wait(frame.delay, clock())
            if wait > 0:
                await asyncio.sleep(wait)
        strike = not fired and (
            (frame.kind == CONTENT and content_seen >= route.trigger_after)
            or (frame.kind in (TAIL, TERMINATOR) and content_seen > 0)
        )
        if fault == "out-of-order" and frame.kind == HEAD and content_seen == 0 and not fired:
            # Hold the block's opening frames back and send them after its first content.
            held.append(frame)
            if len(held) > route.held_heads:
                yield out(held.pop(0))
            continue
        if fault == "out-of-order" and held and frame.kind == CONTENT:
            yield out(frame)
            for head in held:
                yield out(head)
            held.clear()
            fired = True
            content_seen += 1
            continue
        if strike:
            fired = True
            if fault == "midstream-error":
                for tail in route.error_tail():
                    yield out(tail)
                return
            if fault == "drop":
                raise DropConnection
            if fault == "stall":
                await asyncio.sleep(faults.stall_seconds)
                schedule.restart(clock())
            elif fault == "bad-json" and isinstance(frame.data, dict):
                good = out(frame)
                # Cut the JSON in half: one malformed data line, then the stream goes on.
                cut = good.rstrip(b"\n")
                yield cut[: max(12, len(cut) // 2)] + b"\n\n"
                content_seen += 1
                continue
            elif fault == "huge-line" and isinstance(frame.data, dict):
                frame.data["sim_padding"] = "x" * _HUGE
            elif fault == "garbage":
                yield _GARBAGE + b"\n\n"
            elif fault == "unknown-events":
                yield unknown()
        if fault == "unknown-events" and frame.kind == CONTENT and content_seen == 0:
            yield unknown()
        if frame.kind == CONTENT:
            content_seen += 1
            last_content = frame
        yield out(frame)
        if frame.kind == TERMINATOR and fault == "after-terminator" and last_content is not None:
            again = copy.deepcopy(last_content)
            yield out(again)
    for head in held:
        yield out(head)
