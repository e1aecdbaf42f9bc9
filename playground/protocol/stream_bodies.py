"""The bodies that are not an event stream: a whole JSON answer or error, and raw audio.

Half of ``StreamDecoder`` (stream.py): how the first bytes or the content type choose the mode,
the item a whole body or a non-2xx answer becomes, and the items of raw audio. docs/protocol.md §0:
"a stream asked for but one body answered" is read into the same events a stream would give.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from playground.protocol.decoders.whole import NOT_JSON, read_body
from playground.protocol.errors import error_from_body
from playground.protocol.events import StreamEvent
from playground.protocol.findings import FindingSink
from playground.protocol.media import guess_audio_format
from playground.protocol.routes import find_route
from playground.protocol.sse import SSEEvent, SSEItem
from playground.protocol.state import StreamState
from playground.protocol.timeline_items import TimelineItems

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


# A raw audio body's timeline item: 4 KiB is 85 ms of speech's 24 kHz 16-bit PCM, so a song
# heard while it renders starts that late at most.
RAW_AUDIO_BLOCK: Final = 4096
_BOM: Final = b"\xef\xbb\xbf"
# The audio containers guess_audio_format knows, by their first bytes (an MPEG/ADTS frame sync
# starts with 0xFF); fewer bytes than this that could still begin one leave the kind open.
_AUDIO_MAGICS: Final = (b"RIFF", b"ID3", b"OggS", b"fLaC", b"\xff")
_AUDIO_MAGIC_LEN: Final = 4


def _may_be_audio(head: bytes) -> bool:
    return any(m.startswith(head[: len(m)]) for m in _AUDIO_MAGICS)


class BodyModes:
    """The non-SSE half of ``StreamDecoder``; the attributes are the decoder's own."""

    route: str
    state: StreamState
    items: TimelineItems
    bodies: set[int]
    _sink: FindingSink
    _mode: str
    _body: bytearray
    _body_t: tuple[float, float] | None
    _stream_requested: bool | None
    _audio_item: int | None
    _audio_held: bytearray
    _audio_at: int
    _audio_t: float
    _pending: list[tuple[bytes, float]]
    _bytes: int
    _finished: bool

    def _remember(self, index: int, value: Any) -> None:
        raise NotImplementedError

    def _apply(self, event: StreamEvent, ev: SSEEvent) -> None:
        raise NotImplementedError

    def _feed_known(self, chunk: bytes, t: float) -> Sequence[SSEItem]:
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

    def _sniff(self, head_bytes: bytes, *, final: bool = False) -> str:
        """The body's kind from its first bytes, or ``"sniff"`` while they cannot tell yet.

        The decision waits for enough bytes (a raw WAV's ``RIFF`` may come one byte a read), so
        the kind, and so everything decoded from it, is the same however the bytes were split.
        ``final``: the bytes ended, decide with what there is.
        """
        head = head_bytes.lstrip(b" \t\r\n")
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:].lstrip(b" \t\r\n")
        elif head and _BOM.startswith(head) and not final:
            return "sniff"
        if not head:
            if not final:
                return "sniff"  # blank lines are valid SSE, and valid before JSON: wait
            mode = "sse"
        elif head[:1] in (b"{", b"["):
            mode = "json"
        elif len(head) < _AUDIO_MAGIC_LEN and not final and _may_be_audio(head):
            return "sniff"
        elif guess_audio_format(head[:16]) is not None or (
            len(head) < 4 and self._audio_route() and b"RIFF".startswith(head)
        ):
            mode = "audio"
        else:
            mode = "sse"
        self._mode = mode
        return mode

    def _sniff_feed(self, chunk: bytes, t: float, *, final: bool = False) -> list[SSEItem]:
        """Hold the first reads until they tell what the body is; then feed them in order."""
        pending = self._pending
        if chunk:
            pending.append((chunk, t))
        if self._sniff(b"".join(c for c, _ in pending), final=final) == "sniff":
            return []
        self._pending = []
        out: list[SSEItem] = []
        for held, at in pending:
            out.extend(self._feed_known(held, at))
        return out

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
        self._sink.report("http_error", f"HTTP {status}: {err.message}", index)
        state.status = "failed"
        self._finished = True

    def _audio(self, chunk: bytes, t: float) -> list[SSEItem]:
        """Raw audio bytes: one timeline item per ``RAW_AUDIO_BLOCK`` bytes of the body (by
        offset, not by read), so the items, and ``audio.chunks``, do not depend on how the
        bytes were split; the last, shorter block comes with ``finish``."""
        held = self._audio_held
        if not held:
            self._audio_t = t
        held += chunk
        out: list[SSEItem] = []
        while len(held) >= RAW_AUDIO_BLOCK:
            out.append(self._audio_block(bytes(held[:RAW_AUDIO_BLOCK]), t))
            del held[:RAW_AUDIO_BLOCK]
            self._audio_t = t
        return out

    def _audio_rest(self, t: float) -> list[SSEItem]:
        """The bytes ended: the last block of a raw audio body."""
        held = self._audio_held
        if not held:
            return []
        item = self._audio_block(bytes(held), t)
        held.clear()
        return [item]

    def _audio_block(self, block: bytes, t: float) -> SSEItem:
        index = len(self.items)
        start = self._audio_at
        self._audio_at = start + len(block)
        item = SSEEvent.make(
            index=index,
            event="audio",
            data="",
            id=None,
            retry=None,
            raw=b"",  # the bytes live once, in state.audio
            start=start,
            end=self._audio_at,
            t_first=self._audio_t,
            t_last=t,
        )
        self.items.append(item)
        if self._audio_item is None:
            self._audio_item = index
        self.state.add_audio(block, index)
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
            self._sink.report("decoder_error", f"could not read the body: {exc!r}", item.index)
            payload, route = NOT_JSON, None
        if payload is not NOT_JSON:
            self._remember(item.index, payload)
        if route is not None and self.route == "auto":
            self.route = state.route = route
        for event in out:
            self._apply(event, item)
        return [item]
