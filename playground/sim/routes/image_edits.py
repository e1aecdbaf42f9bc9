"""POST /v1/images/edits: a multipart image (and optional mask) edited by the prompt, streamed.

As ``image_edit.partial_image`` events, then ``image_edit.completed`` (docs/protocol.md §5), then
``[DONE]``.
"""

from __future__ import annotations

import base64
import io
import time
from collections.abc import AsyncIterator
from typing import Any

from PIL import Image, UnidentifiedImageError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from playground.sim import picture, prose
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, TERMINATOR, Frame
from playground.sim.image_info import image_info
from playground.sim.routes.images import SECONDS_PER_PARTIAL


def _file(req: SimRequest, *names: str) -> bytes | None:
    for name in names:
        value = req.form.get(name)
        if isinstance(value, tuple):
            return bytes(value[1])
    return None


def edit(source: bytes, mask: bytes | None, prompt: str, size: object) -> Image.Image:
    """The edited picture: the prompt's landscape painted where the mask is transparent (the
    whole image without a mask, half-blended so the original still shows), at the asked size."""
    image = Image.open(io.BytesIO(source)).convert("RGB")
    if isinstance(size, str) and "x" in size:
        image = image.resize(picture.parse_size(size))
    scene = picture.landscape(prompt, image.size)
    if mask is not None:
        alpha = Image.open(io.BytesIO(mask)).convert("RGBA").resize(image.size).getchannel("A")
        # OpenAI: "fully transparent areas (alpha zero) indicate where the image should be edited".
        where = alpha.point(lambda a: 255 if a == 0 else 0)
        return Image.composite(scene, image, where)
    return Image.blend(image, scene, 0.5)


def _bad(message: str, param: str) -> JSONResponse:
    body = {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": "invalid_value",
        }
    }
    return JSONResponse(body, status_code=400)


async def handle(request: Request) -> Response:
    req = await SimRequest.read(request, multipart=True)
    if (early := req.early()) is not None:
        return early
    source = _file(req, "image", "image[]")
    if source is None:
        return _bad("Missing required parameter: 'image'.", "image")
    info = image_info(source)
    if info is None or info.format == "gif":
        return _bad(
            "Invalid file 'image': unsupported mimetype. Supported file formats are "
            "'image/jpeg', 'image/png', and 'image/webp'.",
            "image",
        )
    mask = _file(req, "mask")
    prompt = str(req.body.get("prompt") or "")
    try:
        final = await run_in_threadpool(edit, source, mask, prompt, req.body.get("size"))
    except (UnidentifiedImageError, OSError, ValueError):
        return _bad(
            "Invalid image file or mode for image 1, please check your image file.", "image"
        )
    try:
        partials = max(0, min(3, int(str(req.body.get("partial_images") or 0))))
    except ValueError:
        partials = 0
    fmt = str(req.body.get("output_format") or "png").lower()
    created = int(time.time())

    def fields(used: str) -> dict[str, Any]:
        return {
            "created_at": created,
            "size": f"{final.width}x{final.height}",
            "quality": str(req.body.get("quality") or "auto"),
            "background": str(req.body.get("background") or "opaque"),
            "output_format": used,
        }

    def usage() -> dict[str, Any]:
        text = prose.count_tokens(prompt) or 1
        image_tokens = max(16, final.width * final.height // 4096)
        return {
            "input_tokens": text + image_tokens,
            "input_tokens_details": {"text_tokens": text, "image_tokens": image_tokens},
            "output_tokens": image_tokens,
            "total_tokens": text + 2 * image_tokens,
        }

    async def b64(image: Image.Image) -> tuple[str, str]:
        data, used = await run_in_threadpool(picture.encode, image, fmt)
        return base64.b64encode(data).decode(), used

    if not req.stream:
        data, used = await b64(final)
        return req.json(
            {"created": created, "data": [{"b64_json": data}], **fields(used), "usage": usage()}
        )

    async def frames() -> AsyncIterator[Frame]:
        delay = req.pace.scaled(SECONDS_PER_PARTIAL)
        for i in range(partials):
            data, used = await b64(await run_in_threadpool(picture.stage, final, i, partials))
            event = {"type": "image_edit.partial_image", "b64_json": data, "partial_image_index": i}
            yield Frame(
                CONTENT, event | fields(used), event="image_edit.partial_image", delay=delay
            )
        data, used = await b64(final)
        event = (
            {"type": "image_edit.completed", "b64_json": data} | fields(used) | {"usage": usage()}
        )
        yield Frame(CONTENT, event, event="image_edit.completed", delay=delay)
        yield Frame(TERMINATOR, "[DONE]")

    def error_tail() -> list[Frame]:
        err = {
            "type": "error",
            "error": {"type": "server_error", "code": "server_error", "message": MIDSTREAM_MESSAGE},
        }
        return [Frame(TERMINATOR, err, event="error"), Frame(TERMINATOR, "[DONE]")]

    def unknown(n: int) -> Frame:
        name = "image_edit.sim_annotation"
        return Frame(CONTENT, {"type": name, "note": "unknown event", "n": n}, event=name)

    return req.sse(frames(), RouteFaults(error_tail, unknown, trigger_after=min(1, partials)))
