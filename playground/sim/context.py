"""One simulated request: its body, the X-Sim-* headers (fault, pace, tokens), reply helpers."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from playground.sim import json_depth
from playground.sim.faults import RouteFaults, StreamFaults, error_response, parse_fault
from playground.sim.framing import Frame
from playground.sim.pace import Pace, parse_pace

MAX_TOKENS_HEADER = 1_000_000


def new_id(prefix: str) -> str:
    return f"{prefix}{secrets.token_hex(12)}"


def seed_of(*parts: object) -> int:
    """A stable seed from the prompt, so the same request always gets the same answer."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(slots=True)
class SimRequest:
    """Everything a route handler needs from the request, read once."""

    body: dict[str, Any]
    fault: str
    pace: Pace
    stall_seconds: float
    tokens: int | None  # X-Sim-Tokens: the answer's natural length in tokens
    generation_id: str = field(default_factory=lambda: new_id("gen-"))
    form: dict[str, Any] = field(default_factory=dict)
    cache: Any = None  # the prompt cache's CacheFigures for this request (prompt_cache.py)

    @classmethod
    async def read(cls, request: Request, *, multipart: bool = False) -> SimRequest:
        headers = request.headers
        state = request.app.state  # server-wide defaults (`playground sim --pace/--fault`)
        body: dict[str, Any] = {}
        form: dict[str, Any] = {}
        if multipart:
            async with request.form(max_part_size=64 * 1024 * 1024) as parsed:
                for key, value in parsed.multi_items():
                    if hasattr(value, "read"):
                        form[key] = (getattr(value, "filename", None), await value.read())
                    else:
                        form[key] = value
                        body[key] = value
        else:
            raw = await request.body()
            if raw:
                try:
                    # NaN/Infinity literals become null: they could not be echoed back as JSON.
                    loaded = json_depth.loads(raw, parse_constant=lambda _: None)
                except ValueError:
                    loaded = {}
                body = loaded if isinstance(loaded, dict) else {}
        try:
            stall = float(headers.get("x-sim-stall-seconds", "3"))
        except ValueError:
            stall = 3.0
        tokens: int | None = None
        raw_tokens = headers.get("x-sim-tokens")
        if raw_tokens and raw_tokens.strip().isdigit():
            tokens = max(1, min(int(raw_tokens), MAX_TOKENS_HEADER))
        return cls(
            body=body,
            fault=parse_fault(headers.get("x-sim-fault", getattr(state, "default_fault", None))),
            pace=parse_pace(headers.get("x-sim-pace", getattr(state, "default_pace", None))),
            stall_seconds=max(0.0, min(stall, 600.0)),
            tokens=tokens,
            form=form,
        )

    @property
    def stream(self) -> bool:
        value = self.body.get("stream", False)
        if isinstance(value, str):  # multipart forms send "true"/"false"
            return value.strip().lower() in ("true", "1", "yes")
        return bool(value)

    @property
    def model(self) -> str:
        model = self.body.get("model")
        return model if isinstance(model, str) and model else "sim-chat"

    def early(self, *, anthropic: bool = False) -> Response | None:
        """A fault answered before the stream (HTTP errors), else None."""
        return error_response(self.fault, anthropic=anthropic, generation_id=self.generation_id)

    def json(self, body: dict[str, Any], status: int = 200) -> JSONResponse:
        return JSONResponse(body, status_code=status, headers=self.headers())

    def headers(self) -> dict[str, str]:
        # The gateway returns the generation id on every endpoint (docs/protocol.md §7, OpenRouter).
        return {"X-Generation-Id": self.generation_id, "Cache-Control": "no-cache"}

    def sse(self, frames: AsyncIterator[Frame], route: RouteFaults) -> StreamingResponse:
        """Stream frames as text/event-stream: each event its own body chunk, written when made."""
        from playground.sim.faults import render

        faults = StreamFaults(self.fault, self.stall_seconds)
        headers = self.headers() | {"X-Accel-Buffering": "no"}
        return StreamingResponse(
            render(frames, route, faults), media_type="text/event-stream", headers=headers
        )

    @property
    def wants_json_instead(self) -> bool:
        return self.fault == "json-instead-of-stream"
