"""StreamState: everything a run has produced so far, folded from route events; pure and deterministic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "STATUSES",
    "AudioState",
    "ChoiceState",
    "ErrorInfo",
    "Finding",
    "ImageState",
    "Severity",
    "Status",
    "StreamState",
    "TextBuffer",
    "ToolCallState",
]

# PROTOCOL.md §0; "streaming" only while bytes still arrive.
Status = Literal["streaming", "complete", "incomplete", "failed", "truncated", "cancelled"]
STATUSES: tuple[str, ...] = ("complete", "incomplete", "failed", "truncated", "cancelled")
Severity = Literal["info", "warning", "error"]


class TextBuffer:
    """Append-only text that remembers which timeline item carried each piece (for linked views).

    Appending is O(1); ``value`` joins lazily and caches, so widgets that read only the new suffix
    (``since(n)``) never pay for the whole document.
    """

    __slots__ = ("_cache", "_length", "origins", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.origins: list[tuple[int, int]] = []  # (start offset in text, timeline item index)
        self._length = 0
        self._cache: str | None = ""

    def append(self, text: str, item: int) -> None:
        if not text:
            return
        self.origins.append((self._length, item))
        self.parts.append(text)
        self._length += len(text)
        self._cache = None

    def __len__(self) -> int:
        return self._length

    def __bool__(self) -> bool:
        return self._length > 0

    @property
    def value(self) -> str:
        if self._cache is None:
            joined = "".join(self.parts)
            self.parts = [joined] if joined else []
            self._cache = joined
        return self._cache

    def since(self, offset: int) -> str:
        """The text after ``offset`` characters (what a widget showing ``offset`` chars lacks)."""
        return self.value[offset:] if offset < self._length else ""

    def item_at(self, offset: int) -> int | None:
        """The timeline item that carried the character at ``offset``."""
        import bisect

        origins = self.origins
        if not origins or offset < 0 or offset >= self._length:
            return None
        i = bisect.bisect_right(origins, (offset, float("inf"))) - 1
        return origins[i][1] if i >= 0 else None

    def spans_of(self, item: int) -> list[tuple[int, int]]:
        """Character ranges ``[start, end)`` that timeline item ``item`` contributed."""
        out: list[tuple[int, int]] = []
        origins = self.origins
        for i, (start, origin) in enumerate(origins):
            if origin == item:
                end = origins[i + 1][0] if i + 1 < len(origins) else self._length
                out.append((start, end))
        return out


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
        """Whether the arguments so far parse as JSON (they do once the call is whole)."""
        import json

        text = self.arguments.value
        if not text.strip():
            return False
        try:
            json.loads(text)
        except ValueError:
            return False
        return True


@dataclass(slots=True)
class ImageState:
    """A partial or final image; ``data`` is the decoded bytes, width/height from the header."""

    index: int | None
    final: bool
    output_format: str | None
    data: bytes
    width: int | None
    height: int | None
    item: int  # timeline item that carried it
    t: float  # arrival time of that item


@dataclass(slots=True)
class AudioState:
    format: str | None = None
    data: bytearray = field(default_factory=bytearray)
    sample_rate: int = 24000  # PCM from speech is 24 kHz, 16-bit, mono (PROTOCOL.md §6)
    channels: int = 1
    sample_width: int = 2
    chunks: int = 0
    origins: list[tuple[int, int]] = field(default_factory=list)  # (byte offset, item index)

    @property
    def seconds(self) -> float:
        if self.format not in (None, "pcm"):
            return 0.0
        frame = self.sample_rate * self.channels * self.sample_width
        return len(self.data) / frame if frame else 0.0


@dataclass(slots=True)
class ErrorInfo:
    message: str
    type: str | None = None
    code: str | int | None = None
    status: int | None = None  # HTTP status, when the error came before the stream


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
    terminated: bool = False  # the route's terminator arrived
    incomplete: bool = False  # it stopped short (length, max_tokens, response.incomplete)
    done_text: str | None = None  # transcription: the text of the done event
    events: int = 0  # dispatched SSE events
    comments: int = 0  # comment lines

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
