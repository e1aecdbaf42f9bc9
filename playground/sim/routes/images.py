"""POST /v1/images and /v1/images/generations: partial images, then the final one, then [DONE]."""

from __future__ import annotations

import base64
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from playground.sim import picture, prose
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, TERMINATOR, Frame

SECONDS_PER_PARTIAL = 0.7  # at "realtime" pace


class _Job:
    def __init__(self, req: SimRequest) -> None:
        body = req.body
        self.prompt = str(body.get("prompt") or "")
        self.size = picture.parse_size(body.get("size"))
        partials = body.get("partial_images", 0)
        self.partials = max(0, min(3, partials if isinstance(partials, int) else 0))
        self.fmt = str(body.get("output_format") or "png").lower()
        self.quality = str(body.get("quality") or "auto")
        self.background = str(body.get("background") or "opaque")
        self.created = int(time.time())

    def fields(self, fmt: str) -> dict[str, Any]:
        # OpenAI's fields (docs/protocol.md §5) plus OpenRouter's media_type (§7), which clients
        # ignore when they do not know it.
        return {
            "media_type": f"image/{fmt}",
            "created_at": self.created,
            "size": f"{self.size[0]}x{self.size[1]}",
            "quality": self.quality,
            "background": self.background,
            "output_format": fmt,
        }

    def usage(self) -> dict[str, Any]:
        text = prose.count_tokens(self.prompt) or 1
        out = max(16, self.size[0] * self.size[1] // 4096)
        return {
            "input_tokens": text,
            "input_tokens_details": {"text_tokens": text, "image_tokens": 0},
            "output_tokens": out,
            "total_tokens": text + out,
        }


async def _b64(image: Any, fmt: str) -> tuple[str, str]:
    data, used = await run_in_threadpool(picture.encode, image, fmt)
    return base64.b64encode(data).decode(), used


async def frames(req: SimRequest, job: _Job) -> AsyncIterator[Frame]:
    final = await run_in_threadpool(picture.landscape, job.prompt, job.size)
    delay = req.pace.scaled(SECONDS_PER_PARTIAL)
    for i in range(job.partials):
        img = await run_in_threadpool(picture.stage, final, i, job.partials)
        b64, fmt = await _b64(img, job.fmt)
        data = {
            "type": "image_generation.partial_image",
            "b64_json": b64,
            "partial_image_index": i,
            **job.fields(fmt),
        }
        yield Frame(CONTENT, data, event=data["type"], delay=delay)
    b64, fmt = await _b64(final, job.fmt)
    data = {
        "type": "image_generation.completed",
        "b64_json": b64,
        **job.fields(fmt),
        "usage": job.usage(),
    }
    yield Frame(CONTENT, data, event=data["type"], delay=delay)
    yield Frame(TERMINATOR, "[DONE]")


def route_faults(job: _Job) -> RouteFaults:
    def error_tail() -> list[Frame]:
        # Seeds: "An error event can replace either" (a partial or the completed image).
        err = {
            "type": "error",
            "error": {"type": "server_error", "code": "server_error", "message": MIDSTREAM_MESSAGE},
        }
        return [Frame(TERMINATOR, err, event="error"), Frame(TERMINATOR, "[DONE]")]

    def unknown(n: int) -> Frame:
        name = "image_generation.sim_annotation"
        return Frame(CONTENT, {"type": name, "note": "unknown event", "n": n}, event=name)

    return RouteFaults(error_tail, unknown, trigger_after=min(1, job.partials))


async def whole(job: _Job) -> dict[str, Any]:
    final = await run_in_threadpool(picture.landscape, job.prompt, job.size)
    b64, fmt = await _b64(final, job.fmt)
    return {
        "created": job.created,
        "data": [{"b64_json": b64}],
        **job.fields(fmt),
        "usage": job.usage(),
    }


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    job = _Job(req)
    if not req.stream or req.wants_json_instead:
        return req.json(await whole(job))
    return req.sse(frames(req, job), route_faults(job))
