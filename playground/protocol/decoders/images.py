"""/v1/images streams (docs/protocol.md §5, §7): image_generation.* and image_edit.* images."""

from __future__ import annotations

from typing import Any, ClassVar

from playground.protocol.asked import NOTHING_ASKED, Asked
from playground.protocol.decoders.base import RouteDecoder, as_int, as_str
from playground.protocol.decoders.responses import ResponsesDecoder
from playground.protocol.errors import payload_error
from playground.protocol.events import (
    Finished,
    ImageData,
    ReasoningDelta,
    StreamError,
    StreamEvent,
    TextDelta,
    Usage,
)
from playground.protocol.findings import FindingSink
from playground.protocol.media import b64decode_lenient, image_format
from playground.protocol.sse import SSEEvent

__all__ = ["ImagesDecoder", "check_image"]

# Base64 letters enough for every format's magic bytes (16 letters: 12 bytes, WebP's RIFF....WEBP).
_MAGIC_LETTERS = 16


def check_image(b64: str, sink: FindingSink, item: int, where: str) -> None:
    """``not_an_image`` when ``b64`` decodes but its first bytes are no PNG, JPEG, WebP or GIF
    (what every client that shows the image reads it as); base64 that does not decode at all is
    ``bad_base64``'s, reported where the image is folded."""
    head = b64decode_lenient(b64.lstrip()[:_MAGIC_LETTERS])
    if not head or image_format(head) is not None:
        return  # no bytes at all is no claim to check (an empty placeholder partial)
    shown = head[:8].hex(" ")
    sink.report(
        "not_an_image",
        f"{where}: its base64 decodes to bytes that are no PNG, JPEG, WebP or GIF ({shown})",
        item,
    )


class ImagesDecoder(RouteDecoder):
    """partial_image* then completed (OpenAI), then ``[DONE]`` (OpenRouter); or an error."""

    route: ClassVar[str] = "images"

    def __init__(self, sink: FindingSink, asked: Asked = NOTHING_ASKED) -> None:
        super().__init__(sink, asked)
        # Images made by the Responses image_generation tool come as response.* events
        # (image_generation_call.partial_image, docs/protocol.md §3): the responses grammar
        # reads those.
        self._responses: ResponsesDecoder | None = None
        self._partials = 0  # partial images received (checked against partial_images asked)

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        kind = self.event_kind(ev, payload)
        if kind is None:
            return
        if kind.startswith("response."):
            if kind == "response.image_generation_call.partial_image":
                self._partials += 1
            if self._responses is None:
                self._responses = ResponsesDecoder(self.sink)
            self._responses.decode(ev, payload, out)
            self.errors = self._responses.errors
        elif kind in ("image_generation.partial_image", "image_edit.partial_image"):
            b64 = as_str(payload.get("b64_json"))
            if b64 is None:
                self.sink.report("unexpected_shape", "partial_image without b64_json", ev.index)
                return
            self._partials += 1
            check_image(b64, self.sink, ev.index, kind)
            out.append(
                ImageData(
                    b64,
                    final=False,
                    index=as_int(payload.get("partial_image_index")),
                    output_format=as_str(payload.get("output_format")),
                    size=as_str(payload.get("size")),
                )
            )
        elif kind in ("image_generation.completed", "image_edit.completed"):
            b64 = as_str(payload.get("b64_json"))
            if b64 is not None:
                check_image(b64, self.sink, ev.index, kind)
                fmt = as_str(payload.get("output_format"))
                media = as_str(payload.get("media_type"))  # OpenRouter: "image/png"
                if fmt is None and media and "/" in media:
                    fmt = media.split("/", 1)[1]
                out.append(
                    ImageData(b64, final=True, output_format=fmt, size=as_str(payload.get("size")))
                )
            usage = payload.get("usage")
            if type(usage) is dict:
                out.append(Usage(usage))
            out.append(Finished(kind, terminal=True))
        elif kind == "image_generation.text_chunk":
            text = as_str(payload.get("text"))
            if text:
                if payload.get("phase") == "reasoning":
                    out.append(ReasoningDelta(text))
                else:
                    out.append(TextDelta(text))
        elif kind == "error" or "error" in payload:
            self.error(ev, payload_error(payload) or StreamError("error"), out, final=kind)
        else:
            self.unknown(ev, kind)

    def finish(self, *, terminated: bool, failed: bool) -> None:
        if self._responses is not None:
            self._responses.finish(terminated=terminated, failed=failed)
        wanted = self.asked.partial_images
        if terminated and not failed and wanted is not None and self._partials < wanted:
            # Info, not a warning: OAI-PY image_generate_params says the final image may be
            # sent before all the partial images asked for were generated (docs/protocol.md §5).
            self.sink.report(
                "fewer_partials",
                f"{self._partials} partial image(s) came; the request asked for {wanted}",
                None,
            )
