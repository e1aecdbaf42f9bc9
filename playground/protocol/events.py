"""The project's own small vocabulary of stream events, which every route decoder emits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "Annotation",
    "AudioChunk",
    "BlockStarted",
    "BlockStopped",
    "Finished",
    "ImageData",
    "JobUpdate",
    "ReasoningDelta",
    "RefusalDelta",
    "Signature",
    "StreamError",
    "StreamEvent",
    "TextDelta",
    "ToolCallDelta",
    "TranscriptDone",
    "TranscriptSegment",
    "Usage",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text for choice (chat) or text channel ``index``."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's visible thinking."""

    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class RefusalDelta:
    text: str
    index: int = 0


@dataclass(frozen=True, slots=True)
class Signature:
    """An opaque reasoning signature or encrypted reasoning (shown as noted, never as text)."""

    kind: Literal["signature", "encrypted", "redacted"]
    value: str
    block: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of a tool call, merged by ``key`` (chat index, responses output index, block)."""

    key: int | str
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    server: bool = False  # a provider-side tool (Anthropic server_tool_use), kept apart
    replace: bool = False  # ``arguments`` is the whole final string (a ``.done`` event)
    choice: int = 0


@dataclass(frozen=True, slots=True)
class ImageData:
    """A partial or final image, base64 as it came on the wire (decoded lazily by the state)."""

    b64: str
    final: bool
    index: int | None = None
    output_format: str | None = None
    size: str | None = None


@dataclass(frozen=True, slots=True)
class AudioChunk:
    """A piece of audio, base64 as it came on the wire."""

    b64: str
    format: str | None = None


@dataclass(frozen=True, slots=True)
class Annotation:
    """A citation on the answer text (Responses ``response.output_text.annotation.added``, chat
    ``delta.annotations``): the object as the wire states it, e.g. ``{"type": "url_citation",
    "url", "title", "start_index", "end_index"}`` (chat's nested ``url_citation`` is flattened)."""

    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class JobUpdate:
    """An async job's news (music: ``music.job.created`` / ``.progress`` / ``.completed``).

    ``job`` is the whole job object when the event carries one (it replaces the previous one);
    ``progress`` is 0..1; ``status`` as the job states it (queued, rendering, completed, ...).
    """

    job: dict[str, Any] | None = None
    progress: float | None = None
    status: str | None = None


@dataclass(frozen=True, slots=True)
class TranscriptSegment:
    id: str | None
    start: float | None
    end: float | None
    speaker: str | None
    text: str


@dataclass(frozen=True, slots=True)
class TranscriptDone:
    """The whole transcript as ``transcript.text.done`` states it (wins over the deltas)."""

    text: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage as the server reported it; ``overlay`` merges into the previous (Anthropic)."""

    usage: dict[str, Any]
    overlay: bool = False


@dataclass(frozen=True, slots=True)
class StreamError:
    message: str
    type: str | None = None
    code: str | int | None = None
    status: int | None = None


@dataclass(frozen=True, slots=True)
class BlockStarted:
    """An output item or content block opened (its ``kind`` as the wire names it)."""

    key: int | str
    kind: str
    data: dict[str, Any] | None = None  # a block that arrives whole (Anthropic *_tool_result)


@dataclass(frozen=True, slots=True)
class BlockStopped:
    key: int | str


@dataclass(frozen=True, slots=True)
class Finished:
    """A finish reason (chat ``finish_reason``, ``stop_reason``) or the route's terminator.

    ``reason`` is what to report as ``finish``; ``terminal`` marks the route's own terminator
    (``[DONE]``, a final response event, ``message_stop``, ``*.completed``/``*.done``);
    ``incomplete`` marks a stop short of the answer (length, max_tokens, response.incomplete).
    """

    reason: str | None
    terminal: bool = False
    incomplete: bool = False
    choice: int = 0


StreamEvent = (
    TextDelta
    | ReasoningDelta
    | RefusalDelta
    | Signature
    | ToolCallDelta
    | ImageData
    | AudioChunk
    | Annotation
    | JobUpdate
    | TranscriptSegment
    | TranscriptDone
    | Usage
    | StreamError
    | BlockStarted
    | BlockStopped
    | Finished
)
