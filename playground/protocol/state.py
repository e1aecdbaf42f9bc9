"""StreamState: what a run has produced so far, folded from route events; pure, deterministic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal, assert_never

from playground.protocol.events import (
    Annotation,
    AudioChunk,
    BlockStarted,
    BlockStopped,
    Finished,
    ImageData,
    JobUpdate,
    ReasoningDelta,
    RefusalDelta,
    Signature,
    StreamError,
    StreamEvent,
    TextDelta,
    ToolCallDelta,
    TranscriptDone,
    TranscriptSegment,
    Usage,
)
from playground.protocol.media import (
    b64_size,
    b64decode_lenient,
    b64decode_prefix,
    guess_audio_format,
    image_format,
    image_size,
    parse_wav_header,
)
from playground.protocol.media_state import AudioState, ImageState
from playground.protocol.text_buffer import Origins, TextBuffer

__all__ = [
    "STATUSES",
    "AudioState",
    "ChoiceState",
    "ErrorInfo",
    "Finding",
    "ImageState",
    "Origins",
    "Severity",
    "Status",
    "StreamState",
    "TextBuffer",
    "ToolCallState",
]

# docs/protocol.md §0; "streaming" only while bytes still arrive.
Status = Literal["streaming", "complete", "incomplete", "failed", "truncated", "cancelled"]
STATUSES: tuple[str, ...] = ("complete", "incomplete", "failed", "truncated", "cancelled")
Severity = Literal["info", "warning", "error"]


# Base64 this long (a large image, >= 48 KB) is decoded lazily, off the folding thread; its
# header is read from the first _HEAD_B64 characters (3 KB).
_LAZY_B64: Final = 1 << 16
_HEAD_B64: Final = 4096


@dataclass(slots=True)
class ChoiceState:
    """One chat choice (or the single answer on the other routes)."""

    index: int
    text: TextBuffer = field(default_factory=TextBuffer)
    reasoning: TextBuffer = field(default_factory=TextBuffer)
    refusal: TextBuffer = field(default_factory=TextBuffer)
    finish: str | None = None


@dataclass(slots=True)
class ToolCallState:
    key: int | str
    id: str | None = None
    name: str | None = None
    arguments: TextBuffer = field(default_factory=TextBuffer)
    server: bool = False
    choice: int = 0
    done: bool = False

    @property
    def arguments_text(self) -> str:
        return self.arguments.value

    @property
    def valid_json(self) -> bool:
        """Whether the arguments so far parse as JSON (they do once the call is whole); False
        when they nest deeper than ``safe_json.MAX_DEPTH`` (the run has ``json_too_deep``)."""
        from playground.protocol.safe_json import exceeds_depth_in_pieces, loads

        # Too deep is decided on the pieces: arguments nested past the limit (megabytes of
        # brackets) are never joined whole for it.
        if not self.arguments or exceeds_depth_in_pieces(self.arguments.pieces()):
            return False
        text = self.arguments.value
        if not text.strip():
            return False
        try:
            loads(text)
        except ValueError:
            return False
        return True

    def as_json(self, *, pieces: bool = False) -> dict[str, Any]:
        """``pieces``: the arguments as their ``TextBuffer`` (projection.state_json)."""
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments if pieces else self.arguments.value,
            "valid_json": self.valid_json,
        }


@dataclass(slots=True)
class ErrorInfo:
    message: str
    type: str | None = None
    code: str | int | None = None
    status: int | None = None  # HTTP status, when the error came before the stream
    retry_after: str | None = None  # the Retry-After header of a pre-stream error
    item: int | None = None  # timeline item that carried it


@dataclass(slots=True)
class Finding:
    """A departure from the documented grammar, tied to the timeline item that showed it."""

    severity: Severity
    code: str
    message: str
    item: int | None  # timeline item index (SSE item index); None for whole-stream findings

    def as_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "event": self.item,
        }


@dataclass(slots=True)
class StreamState:
    """What a run has produced so far. Text only grows; ``status`` ends as one of STATUSES."""

    route: str = "chat"
    status: Status = "streaming"
    choices: dict[int, ChoiceState] = field(default_factory=dict)
    tool_calls: list[ToolCallState] = field(default_factory=list)
    images: list[ImageState] = field(default_factory=list)
    audio: AudioState | None = None
    segments: list[dict[str, Any]] = field(default_factory=list)
    signatures: list[tuple[str, str]] = field(default_factory=list)  # (kind, value)
    usage: dict[str, Any] | None = None
    finish: str | None = None
    error: ErrorInfo | None = None
    findings: list[Finding] = field(default_factory=list)
    # Findings past the first few of their code: counted here, not kept (findings.py).
    findings_omitted: dict[str, int] = field(default_factory=dict)
    terminated: bool = False  # the route's terminator arrived
    incomplete: bool = False  # it stopped short (length, max_tokens, response.incomplete)
    done_text: str | None = None  # transcription: the text of the done event
    events: int = 0  # dispatched SSE events
    comments: int = 0  # comment lines
    blocks: dict[int | str, str] = field(default_factory=dict)  # open/closed blocks: key -> kind
    open_blocks: set[int | str] = field(default_factory=set)
    block_data: dict[int | str, dict[str, Any]] = field(default_factory=dict)  # whole blocks
    audio_format_hint: str | None = None  # the request's response_format, when known
    bad_data: list[int] = field(default_factory=list)  # items whose base64 did not decode
    annotations: list[dict[str, Any]] = field(default_factory=list)  # citations, in order
    job: dict[str, Any] | None = None  # music: the async job as last stated (id, stream_url, ...)
    progress: float | None = None  # music: the job's progress 0..1, as last reported
    job_status: str | None = None  # music: queued | rendering | completed | failed | ...
    _tool_index: dict[tuple[int, int | str], ToolCallState] = field(default_factory=dict)

    def choice(self, index: int = 0) -> ChoiceState:
        found = self.choices.get(index)
        if found is None:
            found = self.choices[index] = ChoiceState(index)
        return found

    @property
    def text(self) -> str:
        if self.done_text is not None:
            return self.done_text
        found = self.choices.get(0)
        return found.text.value if found else ""

    @property
    def reasoning(self) -> str:
        found = self.choices.get(0)
        return found.reasoning.value if found else ""

    @property
    def refusal(self) -> str:
        found = self.choices.get(0)
        return found.refusal.value if found else ""

    # -- folding ----------------------------------------------------------------------------

    def apply(self, event: StreamEvent, item: int = -1, t: float = 0.0) -> None:
        """Fold one route event into the state (pure and deterministic; docs/design.md "Seams")."""
        match event:
            case TextDelta(text=text, index=index):
                found = self.choices.get(index)
                if found is None:
                    found = self.choice(index)
                found.text.append(text, item)
            case ReasoningDelta(text=text, index=index):
                self.choice(index).reasoning.append(text, item)
            case RefusalDelta(text=text, index=index):
                self.choice(index).refusal.append(text, item)
            case Signature(kind=kind, value=value):
                self.signatures.append((kind, value))
            case ToolCallDelta():
                self._apply_tool(event, item)
            case ImageData():
                self._apply_image(event, item, t)
            case AudioChunk(b64=b64, format=fmt):
                data = b64decode_lenient(b64)
                if data is None:
                    self.bad_data.append(item)
                    return
                self.add_audio(data, item, fmt)
            case TranscriptSegment(id=sid, start=start, end=end, speaker=speaker, text=text):
                self.segments.append(
                    {"id": sid, "start": start, "end": end, "speaker": speaker, "text": text}
                )
            case TranscriptDone(text=text):
                self.done_text = text
            case Annotation(data=data):
                self.annotations.append(data)
            case JobUpdate(job=job, progress=progress, status=job_status):
                if job is not None:
                    self.job = job
                if progress is not None:
                    self.progress = progress
                if job_status is not None:
                    self.job_status = job_status
            case Usage(usage=usage, overlay=overlay):
                if overlay and self.usage is not None:
                    merged = dict(self.usage)
                    merged.update(usage)
                    self.usage = merged
                else:
                    self.usage = dict(usage)
            case StreamError(message=message, type=etype, code=code, status=status):
                if self.error is None:  # the first error is the cause; later ones restate it
                    self.error = ErrorInfo(message, etype, code, status, item=item)
            case BlockStarted(key=key, kind=kind, data=data):
                self.blocks[key] = kind
                self.open_blocks.add(key)
                if data is not None:
                    self.block_data[key] = data
            case BlockStopped(key=key):
                self.open_blocks.discard(key)
            case Finished(reason=reason, terminal=terminal, incomplete=incomplete, choice=index):
                if reason is not None:
                    self.choice(index).finish = reason
                    if index == 0:
                        self.finish = reason
                if incomplete:
                    self.incomplete = True
                if terminal:
                    self.terminated = True
            case _:
                assert_never(event)

    def _apply_tool(self, event: ToolCallDelta, item: int) -> None:
        key = (event.choice, event.key)
        call = self._tool_index.get(key)
        if call is None:
            call = ToolCallState(event.key, server=event.server, choice=event.choice)
            self._tool_index[key] = call
            self.tool_calls.append(call)
        if event.id and not call.id:
            call.id = event.id
        if event.name and not call.name:
            call.name = event.name
        if event.replace:
            # The whole final string: it fills in arguments that never streamed; text only grows,
            # so it never overwrites streamed ones (the decoder reports a disagreement).
            if not call.arguments:
                call.arguments.append(event.arguments, item)
            call.done = True
        else:
            call.arguments.append(event.arguments, item)

    def _apply_image(self, event: ImageData, item: int, t: float) -> None:
        b64 = event.b64
        lazy: str | None = None
        nbytes = None
        data: bytes | None
        if len(b64) >= _LAZY_B64:
            # Check it and read its header now; decode it when someone reads `data` (a worker).
            nbytes = b64_size(b64)
            head = b64decode_lenient(b64[:_HEAD_B64]) if nbytes is not None else None
            if head is not None and image_size(head) is not None:
                lazy, data = b64, head
            else:
                data = None  # not base64, or a header beyond the first bytes: decode it all now
        else:
            data = None
        if lazy is None or data is None:
            data = b64decode_lenient(b64)
            if data is None:
                self.bad_data.append(item)
                data = b64decode_prefix(b64)  # keep what is readable (the header, at least)
        size = image_size(data)
        fmt = image_format(data) or event.output_format
        self.images.append(
            ImageState(
                index=event.index,
                final=event.final,
                output_format=fmt,
                data=None if lazy is not None else data,
                width=size[0] if size else None,
                height=size[1] if size else None,
                item=item,
                t=t,
                b64=lazy,
                nbytes=nbytes,
            )
        )

    def add_audio(self, data: bytes, item: int, fmt: str | None = None) -> None:
        """Append audio bytes; the format comes from the event, the request, or the first bytes."""
        audio = self.audio
        if audio is None:
            audio = self.audio = AudioState()
            audio.format = fmt or self.audio_format_hint
        if not data:
            return
        audio.chunks += 1
        if not audio.header_done:
            audio.header += data
            if audio.format in (None, "wav", "pcm"):
                head = bytes(audio.header[:16])
                if len(head) < 12 and (audio.format != "pcm" or b"RIFF".startswith(head[:4])):
                    return  # too few bytes to tell yet
                guessed = guess_audio_format(head)
                if audio.format == "pcm":
                    # Raw PCM may look like an MP3 frame sync by chance: only a RIFF header
                    # overrides what the request said.
                    audio.format = "wav" if guessed == "wav" else "pcm"
                else:
                    audio.format = guessed or "pcm"
            if audio.format == "wav":
                info = parse_wav_header(bytes(audio.header))
                if info is None or info.data_offset is None:
                    if len(audio.header) < 65536:
                        return  # the header is not whole yet
                    audio.format = "pcm"  # give up on the header, keep the bytes
                    data = bytes(audio.header)
                else:
                    # A WAV body (music's stream_url) is PCM behind a header: keep the frames,
                    # take rate/channels/width from the header, and say "pcm" so players stream it.
                    audio.sample_rate = info.sample_rate
                    audio.channels = info.channels
                    audio.sample_width = info.sample_width
                    audio.format = "pcm"
                    audio.container = "wav"
                    data = bytes(audio.header[info.data_offset :])
            else:
                data = bytes(audio.header)
            audio.header = bytearray()
            audio.header_done = True
        audio.origins.append((len(audio.data), item))
        audio.data += data

    def finalize(self) -> Status:
        """The final status, first rule that applies (docs/protocol.md §0)."""
        if self.status == "cancelled":
            return self.status
        audio = self.audio
        if audio is not None and not audio.header_done and audio.header:
            # Fewer bytes than a header: keep them as they are.
            audio.format = audio.format if audio.format not in (None, "wav") else "pcm"
            audio.data += audio.header
            audio.header = bytearray()
            audio.header_done = True
        if self.error is not None:
            self.status = "failed"
        elif not self.terminated:
            self.status = "truncated"
        elif self.incomplete:
            self.status = "incomplete"
        else:
            self.status = "complete"
        return self.status
