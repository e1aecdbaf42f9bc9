"""The bodies that are not an event stream: a whole JSON answer or error, and raw audio.

Half of ``StreamDecoder`` (stream.py): how the first bytes or the content type choose the mode,
the item a whole body or a non-2xx answer becomes, and the items of raw audio. docs/protocol.md §0:
"a stream asked for but one body answered" is read into the same events a stream would give.
"""

from __future__ import annotations

from typing import Any, Final

from playground.protocol.decoders.whole import NOT_JSON, read_body
from playground.protocol.errors import error_from_body
from playground.protocol.events import StreamEvent
from playground.protocol.findings import FindingSink
from playground.protocol.media import guess_audio_format
from playground.protocol.routes import find_route
from playground.protocol.sse import SSEEvent, SSEItem
from playground.protocol.state import StreamState

__all__ = ["BodyModes"]

# A Content-Type's audio subtype -> the format the audio view plays.
_AUDIO_SUBTYPES: Final = {
    "mpeg": "mp3",
    "mp3": "mp3",
    "wav": "wav",
    "x-wav": "wav",
    "wave": "wav",
    "ogg": "opus",
    "opus": "opus",
    "flac": "flac",
    "aac": "aac",
    "l16": "pcm",
    "pcm": "pcm",
}


class BodyModes:
    """The non-SSE half of ``StreamDecoder``; the attributes are the decoder's own."""

    route: str
    state: StreamState
    items: list[SSEItem]
    bodies: set[int]
    _sink: FindingSink
    _mode: str
    _body: bytearray
    _body_t: tuple[float, float] | None
    _stream_requested: bool | None
    _audio_item: int | None
    _bytes: int
    _finished: bool

    def _remember(self, index: int, value: Any) -> None:
        raise NotImplementedError

    def _apply(self, event: StreamEvent, ev: SSEEvent) -> None:
        raise NotImplementedError

    def set_content_type(self, content_type: str | None) -> None:
        """Choose how to read the body: SSE, a whole JSON answer, or raw audio."""
        if not content_type:
            return
        mime = content_type.split(";", 1)[0].strip().lower()
        if mime == "text/event-stream":
            self._mode = "sse"
        elif mime == "application/json" or mime.endswith("+json"):
            self._mode = "json"
        elif mime.startswith("audio/") or (
            mime == "application/octet-stream" and self._audio_route()
        ):
            self._mode = "audio"
            if self.state.audio_format_hint is None:
                self.state.audio_format_hint = _AUDIO_SUBTYPES.get(mime.split("/", 1)[1])

    def _audio_route(self) -> bool:
        """Whether this route may answer with raw audio bytes (its descriptor's ``audio_body``)."""
        found = find_route(self.route)
        return found is not None and found.audio_body

    def _sniff(self, chunk: bytes) -> str:
        head = chunk.lstrip(b" \t\r\n")
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:].lstrip(b" \t\r\n")
        if not head:
            return "sse"  # blank lines are valid SSE; decide on the next bytes
        if head[:1] in (b"{", b"["):
            mode = "json"
        elif guess_audio_format(head[:16]) is not None or (
            len(head) < 4 and self._audio_route() and b"RIFF".startswith(head)
        ):
            mode = "audio"
        else:
            mode = "sse"
        self._mode = mode
        return mode

    def fail_before_stream(
        self,
        status: int,
        body: bytes,
        content_type: str | None,
        retry_after: str | None = None,
    ) -> None:
        """A non-2xx answer: its error envelope (any shape, or none) becomes ``state.error``."""
        err = error_from_body(status, body, content_type)
        index = len(self.items)
        item = SSEEvent.make(
            index=index,
            event="error",
            data=body.decode("utf-8", "replace"),
            id=None,
            retry=None,
            raw=bytes(body),
            start=0,
            end=len(body),
            t_first=0.0,
            t_last=0.0,
        )
        self.items.append(item)
        self.bodies.add(index)
        state = self.state
        state.apply(err, index)
        if state.error is not None:
            state.error.retry_after = retry_after
            state.error.status = status
        self._sink.report("error", "http_error", f"HTTP {status}: {err.message}", index)
        state.status = "failed"
        self._finished = True

    def _audio(self, chunk: bytes, t: float) -> SSEItem:
        index = len(self.items)
        start = self._bytes - len(chunk)
        item = SSEEvent.make(
            index=index,
            event="audio",
            data="",
            id=None,
            retry=None,
            raw=b"",  # the bytes live once, in state.audio
            start=start,
            end=self._bytes,
            t_first=t,
            t_last=t,
        )
        self.items.append(item)
        if self._audio_item is None:
            self._audio_item = index
        self.state.add_audio(chunk, index)
        return item

    def _whole(self, t: float) -> list[SSEItem]:
        body = bytes(self._body)
        if not body:
            return []
        t_first, t_last = self._body_t or (t, t)
        item = SSEEvent.make(
            index=len(self.items),
            event="message",
            data=body.decode("utf-8", "replace"),
            id=None,
            retry=None,
            raw=body,
            start=0,
            end=len(body),
            t_first=t_first,
            t_last=t_last,
        )
        self.items.append(item)
        self.bodies.add(item.index)
        state = self.state
        state.events += 1
        out: list[StreamEvent] = []
        try:
            payload, route = read_body(
                self.route, body, self._stream_requested, out, self._sink, item.index
            )
        except Exception as exc:  # pragma: no cover - defensive boundary
            self._sink.report(
                "error", "decoder_error", f"could not read the body: {exc!r}", item.index
            )
            payload, route = NOT_JSON, None
        if payload is not NOT_JSON:
            self._remember(item.index, payload)
        if route is not None and self.route == "auto":
            self.route = state.route = route
        for event in out:
            self._apply(event, item)
        return [item]
