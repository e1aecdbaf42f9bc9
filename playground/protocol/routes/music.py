"""Music: the job's ``stream_url`` answers with WAV PCM as it renders, read on the raw-audio path.

The seed pages document no SSE for music (streaming-vultr-inference.md, "Other streams"), so the
stream decoder feeds an ``audio/*`` body straight into ``StreamState.add_audio``, which parses the
RIFF/WAVE header (sample rate, channels, width) and keeps the PCM frames. This decoder only covers
the case of JSON events arriving on that route anyway (an error, or a base64 ``audio`` field).
"""

from __future__ import annotations

from typing import Any, ClassVar

from playground.protocol.errors import payload_error
from playground.protocol.events import AudioChunk, Finished, StreamEvent
from playground.protocol.routes.base import RouteDecoder, as_str
from playground.protocol.sse import SSEEvent

__all__ = ["MusicDecoder"]


class MusicDecoder(RouteDecoder):
    route: ClassVar[str] = "music"

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        err = payload_error(payload)
        if err is not None:
            self.error(ev, err, out)
            return
        if type(payload) is not dict:
            return
        audio = as_str(payload.get("audio")) or as_str(payload.get("delta"))
        if audio is not None:
            out.append(AudioChunk(audio))
        status = as_str(payload.get("status"))
        if status in ("completed", "succeeded", "done"):
            out.append(Finished(status, terminal=True))
        elif audio is None:
            self.unknown(ev, as_str(payload.get("type")) or ev.event)
