"""The images route: path, its ``image_generation.*``/``image_edit.*`` events, its body."""

from __future__ import annotations

from typing import Any

from playground.protocol.params import RequestParams, put
from playground.protocol.routes.route import Route, take

__all__ = ["ROUTE"]


def build(p: RequestParams) -> dict[str, Any]:
    body: dict[str, Any] = {"model": p.model, "prompt": p.prompt or ""}
    put(body, "n", p.n)
    put(body, "size", p.size)
    put(body, "quality", p.quality)
    put(body, "output_format", p.output_format)
    body["stream"] = p.stream
    if p.stream and p.partial_images is not None:
        body["partial_images"] = p.partial_images  # 0-3, streaming only (docs/protocol.md §5)
    return body


def read(rest: dict[str, Any], p: RequestParams) -> None:
    for key in ("prompt", "n", "size", "quality", "output_format", "partial_images"):
        take(rest, p, key)


# docs/protocol.md §5: partial images, then image_generation.completed; the images seed ends with
# "then data: [DONE]", which is harmless after the final event.
ROUTE = Route(
    name="images",
    title="Images",
    path="/images/generations",
    method="POST",
    sse=True,
    multipart=False,
    decoder="playground.protocol.decoders.images:ImagesDecoder",
    build=build,
    read=read,
    terminator="image_generation.completed",
    done="after",
    event_prefixes=("image_generation.", "image_edit."),
    # OpenAI: "POST /images/edits ... multipart/form-data", streamed as image_edit.* events;
    # some gateways serve generations at the short /images (OR-DOCS: POST /api/v1/images).
    other_paths=(("POST", "/images/edits"), ("POST", "/images")),
)
