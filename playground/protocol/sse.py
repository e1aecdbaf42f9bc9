"""Incremental server-sent-events parser to the WHATWG rules, keeping raw bytes, offsets and times.

The parser is fed network chunks as they arrive (``feed(chunk, t)``) and returns the items each
chunk completes: dispatched events, comment lines (kept as their own items, PROTOCOL.md §0) and,
at the end of the stream, an event left unterminated (never dispatched, WHATWG; Mozilla bug 710546).

Why it is shaped the way it is (see issue 7 for the measurements):
- bytes are appended to one buffer and only chunks that contain a CR or LF are searched;
  ``_scanned`` remembers how far the buffer is known to hold no line end, so a 10 MB line fed in
  4 KiB pieces is scanned once, not once per piece;
- bytes are tested by value (``10 in chunk``), which is far cheaper than ``b"\\n" in chunk``;
- UTF-8 is decoded once per field, on whole lines, so a character split across chunks is whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "SSEComment",
    "SSEEvent",
    "SSEItem",
    "SSEParser",
    "SSEUnterminated",
    "parse_all",
]

_BOM: Final = b"\xef\xbb\xbf"
_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
_LF: Final = 10
_CR: Final = 13
_COLON: Final = 58
_SPACE: Final = 32


@dataclass(slots=True)
class SSEEvent:
    """One dispatched event: its fields as the WHATWG algorithm yields them, and where it came from."""

    index: int
    event: str
    data: str
    id: str | None
    retry: int | None
    raw: bytes
    start: int
    end: int
    t_first: float
    t_last: float


@dataclass(slots=True)
class SSEComment:
    """A comment line (``: text``): skipped by the spec's dispatch, kept here as its own item."""

    index: int
    text: str
    raw: bytes
    start: int
    end: int
    t_first: float
    t_last: float


@dataclass(slots=True)
class SSEUnterminated:
    """Bytes left at end of stream without the blank line that would dispatch them (never dispatched)."""

    index: int
    event: str | None
    data: str | None
    raw: bytes
    start: int
    end: int
    t_first: float
    t_last: float
    fields: list[str] = field(default_factory=list)


SSEItem = SSEEvent | SSEComment | SSEUnterminated


def _strip_one_space(value: bytes) -> bytes:
    return value[1:] if value[:1] == b" " else value


class SSEParser:
    """Feed bytes with their arrival time; get back the items they complete. Never raises on input."""

    __slots__ = (
        "_bom_checked",
        "_buf",
        "_cr_seen",
        "_data",
        "_event_start",
        "_event_t",
        "_event_type",
        "_fields",
        "_finished",
        "_last_id",
        "_line_t",
        "_next_index",
        "_offset",
        "_pos",
        "_retry",
        "_scanned",
    )

    def __init__(self) -> None:
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0]
        self._pos = 0  # start of the first unconsumed line, in _buf
        self._scanned = 0  # _buf[_pos:_scanned] is known to hold no line end
        self._bom_checked = False
        self._cr_seen = False
        self._line_t = 0.0
        self._data: list[bytes] = []
        self._fields: list[str] = []
        self._event_type: bytes | None = None
        self._event_start: int | None = None  # stream offset of the current event's first line
        self._event_t = 0.0
        self._last_id: str | None = None
        self._retry: int | None = None
        self._next_index = 0
        self._finished = False

    @property
    def offset(self) -> int:
        """Bytes received so far."""
        return self._offset + len(self._buf)

    @property
    def last_event_id(self) -> str | None:
        return self._last_id

    def feed(self, chunk: bytes, t: float = 0.0) -> list[SSEItem]:
        """Take one chunk that arrived at time ``t``; return the items it completes, in order."""
        if not chunk or self._finished:
            return []
        buf = self._buf
        waiting_cr = len(buf) > self._pos and buf[-1] == _CR
        if self._pos == len(buf):
            self._line_t = t
        buf += chunk
        if not self._bom_checked:
            if len(buf) < 3 and _BOM.startswith(bytes(buf)):
                return []
            self._bom_checked = True
            if buf[:3] == _BOM:
                # One BOM at the very start only (WHATWG); its bytes still count in offsets.
                self._pos = self._scanned = 3
            waiting_cr = True  # force one scan of everything held back while checking
        # Fast path: no line end in this chunk and no CR left waiting for its possible LF.
        if not waiting_cr and _LF not in chunk and _CR not in chunk:
            self._scanned = len(buf)
            return []
        if _CR in chunk:
            self._cr_seen = True
        return self._consume(t, at_eof=False)

    def finish(self, t: float = 0.0) -> list[SSEItem]:
        """End of stream: a lone CR still waiting completes its line; an unterminated event is reported."""
        if self._finished:
            return []
        self._finished = True
        out = self._consume(t, at_eof=True) if self._pending_cr() else []
        buf = self._buf
        partial = bytes(buf[self._pos :])
        if self._event_start is not None or partial:
            start = self._event_start if self._event_start is not None else self._offset + self._pos
            raw = bytes(buf[start - self._offset :])
            data = b"\n".join(self._data).decode("utf-8", "replace") if self._data else None
            event = self._event_type.decode("utf-8", "replace") if self._event_type else None
            out.append(
                SSEUnterminated(
                    index=self._take_index(),
                    event=event,
                    data=data,
                    raw=raw,
                    start=start,
                    end=self.offset,
                    t_first=self._event_t if self._event_start is not None else self._line_t,
                    t_last=t,
                    fields=list(self._fields),
                )
            )
        self._data = []
        self._event_type = None
        self._event_start = None
        return out

    # -- internals -------------------------------------------------------------------------

    def _pending_cr(self) -> bool:
        buf = self._buf
        return len(buf) > self._pos and buf[-1] == _CR

    def _take_index(self) -> int:
        index = self._next_index
        self._next_index = index + 1
        return index

    def _consume(self, t: float, *, at_eof: bool) -> list[SSEItem]:
        buf = self._buf
        out: list[SSEItem] = []
        pos = self._pos
        end_of_data = len(buf)
        if not at_eof and buf[-1] == _CR:
            # A CR at the end of a chunk may be half of a CRLF: wait for the next byte.
            end_of_data -= 1
        search_from = max(pos, self._scanned)
        if not self._cr_seen:
            find = buf.find
            nl = find(b"\n", search_from, end_of_data)
            while nl != -1:
                self._line(buf, pos, nl, nl + 1, t, out)
                pos = nl + 1
                self._line_t = t
                nl = find(b"\n", pos, end_of_data)
        else:
            for match in _LINE_END.finditer(buf, search_from, end_of_data):
                self._line(buf, pos, match.start(), match.end(), t, out)
                pos = match.end()
                self._line_t = t
        self._pos = pos
        self._scanned = end_of_data
        self._compact()
        return out

    def _compact(self) -> None:
        # Drop bytes no item can still need: before the current line and the current event.
        keep_from = self._pos
        if self._event_start is not None:
            keep_from = min(keep_from, self._event_start - self._offset)
        if keep_from > 65536 or (keep_from and keep_from == len(self._buf)):
            del self._buf[:keep_from]
            self._offset += keep_from
            self._pos -= keep_from
            self._scanned -= keep_from

    def _line(
        self, buf: bytearray, start: int, stop: int, after: int, t: float, out: list[SSEItem]
    ) -> None:
        if start == stop:
            self._dispatch(after, t, out)
            return
        line = buf[start:stop]
        if line[0] == _COLON:
            text = _strip_one_space(line[1:]).decode("utf-8", "replace")
            out.append(
                SSEComment(
                    index=self._take_index(),
                    text=text,
                    raw=bytes(buf[start:after]),
                    start=self._offset + start,
                    end=self._offset + after,
                    t_first=self._line_t,
                    t_last=t,
                )
            )
            return
        if self._event_start is None:
            self._event_start = self._offset + start
            self._event_t = self._line_t
        colon = line.find(b":")
        if colon == -1:
            name, value = line, b""
        else:
            name, value = line[:colon], _strip_one_space(line[colon + 1 :])
        self._fields.append(name.decode("utf-8", "replace"))
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._event_type = value
        elif name == b"id":
            if 0 not in value:
                self._last_id = value.decode("utf-8", "replace")
        elif name == b"retry":
            if value.isdigit():
                self._retry = int(value)
        # Any other field name is ignored (WHATWG), but it still belongs to this event's bytes.

    def _dispatch(self, after: int, t: float, out: list[SSEItem]) -> None:
        start = self._event_start
        if start is None:
            return  # a blank line with no fields before it: nothing to dispatch
        data = self._data
        event_type = self._event_type
        self._data = []
        self._event_type = None
        self._event_start = None
        self._fields = []
        retry, self._retry = self._retry, None
        if not data:
            # Empty data buffer: reset and fire nothing (WHATWG), e.g. after a lone `id:` line.
            return
        raw = bytes(self._buf[start - self._offset : after])
        text = (data[0] if len(data) == 1 else b"\n".join(data)).decode("utf-8", "replace")
        out.append(
            SSEEvent(
                index=self._take_index(),
                event=event_type.decode("utf-8", "replace") if event_type else "message",
                data=text,
                id=self._last_id,
                retry=retry,
                raw=raw,
                start=start,
                end=self._offset + after,
                t_first=self._event_t,
                t_last=t,
            )
        )


def parse_all(data: bytes, chunk_size: int = 0) -> list[SSEItem]:
    """Parse a whole byte string (optionally in fixed-size pieces) and finish it."""
    parser = SSEParser()
    items: list[SSEItem] = []
    if chunk_size <= 0:
        items.extend(parser.feed(data))
    else:
        for i in range(0, len(data), chunk_size):
            items.extend(parser.feed(data[i : i + chunk_size]))
    items.extend(parser.finish())
    return items
