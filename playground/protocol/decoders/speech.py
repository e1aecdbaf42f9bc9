"""/v1/audio/speech with stream_format "sse" (docs/protocol.md §6): audio deltas, then done."""

from __future__ import annotations

from typing import Any, ClassVar

from playground.protocol.decoders.base import RouteDecoder, as_str
from playground.protocol.errors import payload_error
from playground.protocol.events import AudioChunk, Finished, StreamError, StreamEvent, Usage
from playground.protocol.sse import SSEEvent

__all__ = ["SpeechDecoder"]


class SpeechDecoder(RouteDecoder):
    """``speech.audio.delta{audio}`` then ``speech.audio.done{usage}``; ``[DONE]`` tolerated."""

    route: ClassVar[str] = "speech"

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        kind = self.event_kind(ev, payload)
        if kind is None:
            return
        if kind == "speech.audio.delta":
            audio = as_str(payload.get("audio"))
            if audio is None:
                self.sink.report("unexpected_shape", "speech.audio.delta without audio", ev.index)
                return
            out.append(AudioChunk(audio))
        elif kind == "speech.audio.done":
            usage = payload.get("usage")
            if type(usage) is dict:
                out.append(Usage(usage))
            out.append(Finished(kind, terminal=True))
        elif kind == "error" or "error" in payload:
            self.error(ev, payload_error(payload) or StreamError("error"), out, final=kind)
        else:
            self.unknown(ev, kind)
