"""The media a run produced so far: images (partial and final) and audio, with provenance."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playground.protocol.media import (
    b64_size,
    b64decode_lenient,
)

__all__ = ["AudioState", "ImageState"]


class ImageState:
    """A partial or final image; ``data`` is the decoded bytes, width/height from the header.

    A large image may keep its base64 text instead, decoded on the first read of ``data`` (the
    images view reads it in its decode thread): the 6 ms of a 2.7 MB partial's base64 stay off
    the UI thread that folds the event (measured). ``nbytes`` is the decoded size either way."""

    __slots__ = (
        "_b64",
        "_data",
        "final",
        "height",
        "index",
        "item",
        "nbytes",
        "output_format",
        "t",
        "width",
    )

    def __init__(
        self,
        index: int | None,
        final: bool,
        output_format: str | None,
        data: bytes | None,
        width: int | None,
        height: int | None,
        item: int,  # timeline item that carried it
        t: float,  # arrival time of that item
        *,
        b64: str | None = None,
        nbytes: int | None = None,
    ) -> None:
        self.index = index
        self.final = final
        self.output_format = output_format
        self._data = data if data is not None or b64 is not None else b""
        self._b64 = b64 if data is None else None
        self.width = width
        self.height = height
        self.item = item
        self.t = t
        if data is not None:
            self.nbytes = len(data)
        else:
            self.nbytes = nbytes if nbytes is not None else (b64_size(b64 or "") or 0)

    @property
    def data(self) -> bytes:
        data = self._data
        if data is None:
            b64 = self._b64
            if b64 is None:  # another thread decoded it just now
                return self._data or b""
            data = b64decode_lenient(b64) or b""
            self._data = data  # before dropping the text: a concurrent reader finds one of them
            self._b64 = None
        return data

    @data.setter
    def data(self, value: bytes) -> None:
        self._data = value
        self._b64 = None
        self.nbytes = len(value)

    def as_json(self) -> dict[str, Any]:
        """What a report shows of the image (its size from ``nbytes``: no base64 decoded)."""
        return {
            "index": self.index,
            "final": self.final,
            "format": self.output_format,
            "width": self.width,
            "height": self.height,
            "bytes": self.nbytes,
        }

    @property
    def decoded(self) -> bool:
        """False while ``data`` is still base64 text waiting for its first read."""
        return self._data is not None

    @property
    def b64(self) -> str | None:
        """The base64 text while ``data`` waits for its first read (None once decoded): what an
        early decode of the arriving event must equal before its pixels show (b64_progress.py)."""
        return self._b64

    def _key(self) -> tuple[object, ...]:
        return (
            self.index,
            self.final,
            self.output_format,
            self.data,
            self.width,
            self.height,
            self.item,
            self.t,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ImageState):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return (
            f"ImageState(index={self.index!r}, final={self.final!r}, "
            f"output_format={self.output_format!r}, data=<{self.nbytes} bytes>, "
            f"width={self.width!r}, height={self.height!r}, item={self.item!r}, t={self.t!r})"
        )


@dataclass(slots=True)
class AudioState:
    format: str | None = None
    data: bytearray = field(default_factory=bytearray)
    sample_rate: int = 24000  # PCM from speech is 24 kHz, 16-bit, mono (docs/protocol.md §6)
    channels: int = 1
    sample_width: int = 2
    chunks: int = 0
    origins: list[tuple[int, int]] = field(default_factory=list)  # (byte offset, item index)

    container: str | None = None  # "wav" when PCM came inside a RIFF/WAVE body (header stripped)
    header: bytearray = field(default_factory=bytearray)  # bytes held until the format is known
    header_done: bool = False

    @property
    def seconds(self) -> float:
        if self.format not in (None, "pcm"):
            return 0.0
        frame = self.sample_rate * self.channels * self.sample_width
        return len(self.data) / frame if frame else 0.0
