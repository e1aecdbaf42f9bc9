"""/v1/audio/transcriptions, stream=true (docs/protocol.md §6): text deltas, segments, done."""

from __future__ import annotations

from typing import Any, ClassVar

from playground.protocol.decoders.base import RouteDecoder, as_str
from playground.protocol.errors import payload_error
from playground.protocol.events import (
    Finished,
    StreamError,
    StreamEvent,
    TextDelta,
    TranscriptDone,
    TranscriptSegment,
    Usage,
)
from playground.protocol.sse import SSEEvent

__all__ = ["TranscriptionDecoder"]


def _num(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) else None


class TranscriptionDecoder(RouteDecoder):
    """``transcript.text.delta`` / ``.segment`` / ``.done``; the done text wins over the deltas."""

    route: ClassVar[str] = "transcription"

    def decode(self, ev: SSEEvent, payload: Any, out: list[StreamEvent]) -> None:
        kind = self.event_kind(ev, payload)
        if kind is None:
            return
        if kind == "transcript.text.delta":
            delta = as_str(payload.get("delta"))
            if delta:
                out.append(TextDelta(delta))
        elif kind == "transcript.text.segment":
            sid = payload.get("id")
            out.append(
                TranscriptSegment(
                    id=str(sid) if sid is not None else None,
                    start=_num(payload.get("start")),
                    end=_num(payload.get("end")),
                    speaker=as_str(payload.get("speaker")),
                    text=as_str(payload.get("text")) or "",
                )
            )
        elif kind == "transcript.text.done":
            text = as_str(payload.get("text"))
            if text is not None:
                out.append(TranscriptDone(text))
            usage = payload.get("usage")
            if type(usage) is dict:
                out.append(Usage(usage))
            out.append(Finished(kind, terminal=True))
        elif kind == "error" or "error" in payload:
            self.error(ev, payload_error(payload) or StreamError("error"), out, final=kind)
        else:
            self.unknown(ev, kind)
