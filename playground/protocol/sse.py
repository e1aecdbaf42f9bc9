"""Incremental server-sent-events parser to the WHATWG rules, keeping raw bytes, offsets and times.

The parser is fed network chunks as they arrive (``feed(chunk, t)``) and returns the items each
chunk completes: dispatched events, comment lines (kept as their own items, docs/protocol.md §0)
and, at the end of the stream, an event left unterminated (never dispatched, WHATWG; Mozilla bug
710546).

Why it is shaped the way it is (``playground/bench/parsers.py`` measures it, and
``docs/benchmarks.md`` has the numbers):
- a chunk without CR or LF is only appended to a list of pieces (tested by value, ``10 in chunk``,
  which is far cheaper than ``b"\\n" in chunk``); the pieces are joined once, when a line end
  arrives, so a 10 MB line fed in 4 KiB pieces is copied and searched once, not once per piece;
- LF-only bytes (almost every provider) take a path of ``find``/``startswith`` (memchr speed) on
  which a run of one-line ``data:`` events is cut and built in one tight loop; anything else
  (other fields, comments, multi-line data, CR line ends) goes line by line;
- an event's ``data`` is not decoded here at all: ``SSEEvent.data`` derives it from ``raw`` when
  read (the same field rules, ``data_of_raw``), so the hot loop builds no str and a timeline keeps
  no second copy of the bytes; ``id`` and comments are decoded once, on whole lines, so a
  character split across chunks is whole;
- items are built positionally, the hot loop even as a bare ``SSEEvent()`` plus its own slot
  stores (keywords cost 2.5x as much per event; see ``SSEEvent``);
- the module is also compiled with mypyc when the install can (``setup.py``): the same source,
  about twice the throughput; ``playground.protocol`` falls back to this source when the
  compiled module is missing or was built from other bytes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "SSEComment",
    "SSEEvent",
    "SSEItem",
    "SSEParser",
    "SSEUnterminated",
    "all_start_with",
    "data_bytes_of_raw",
    "data_of_raw",
    "data_spans_of_raw",
    "parse_all",
]

_BOM: Final = b"\xef\xbb\xbf"
_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
_CR: Final = 13
_COLON: Final = 58
# mypyc's build of this module is an extension module (setup.py): one loop takes its own path.
_COMPILED: Final = not __file__.endswith((".py", ".pyc"))


class SSEEvent:
    """One dispatched event: its fields as the WHATWG algorithm yields them, and its origin.

    Memory (a million events in the inspector) shapes it:
    - ``data`` is not stored for events the parser builds: it is derived from ``raw`` on each
      read (``data_of_raw``: the same field rules over that event's own bytes, so the same
      text). A timeline keeps the raw bytes only, not a second copy as a str, and the parser's
      hot loop skips the UTF-8 decode. ``data`` given to the constructor (anything but None) is
      kept as it is: events made from a non-SSE body (an HTTP error, a whole JSON answer, a raw
      audio chunk) have no field lines to derive it from.
    - ``event``, ``data``, ``id`` and ``retry`` share one slot, None for the usual
      ``("message", derived, None, None, derived)``; the parser shares one tuple across a run of
      events with the same ``id``.
    - ``raw`` is not a bytes object of its own: the event keeps the read it was cut from
      (``_buf``, shared by every event of that read) and where in it its bytes lie (``_at``,
      ``_stop``); ``raw`` slices them out when read (the whole read itself when the event is all
      of it). The parser's hot loop then allocates nothing but the event: measured on 50,000 chat
      chunks in 4 KiB reads, copying each event's bytes out (a fresh 200-byte object, and the
      fresh pages under a timeline's worth of them) was a third of the parse. The parser keeps
      its own copy instead where sharing would cost memory or repeated copies (``_settle``): an
      event that is long, and the events of a read they fill less than half of.
    - ``start`` is ``end - size`` for every event the parser builds (``raw`` is exactly the
      bytes between them), so it is derived too; only an event whose ``raw`` is not its span
      (a raw audio chunk keeps its bytes elsewhere) stores it, in the same shared slot.
    Eight slots (three of them native ints) and no bytes header of its own per event.
    """

    __slots__ = ("_at", "_buf", "_meta", "_stop", "end", "index", "t_first", "t_last")

    index: int
    _meta: _Meta | None
    # The event's bytes are _buf[_at:_stop] (template_match reads them in place too).
    _buf: bytes
    _at: int
    _stop: int
    end: int
    t_first: float
    t_last: float

    # No __init__: the parser's hot loops make an event as ``SSEEvent()`` and store its six slots
    # themselves. A class without __init__ is the cheapest object to make in CPython 3.11 (cheaper
    # than ``object.__new__(cls)``, whose wrapper parses its arguments), and in the mypyc build the
    # call and the stores are native. ``make`` is the constructor by field.
    @classmethod
    def make(
        cls,
        index: int,
        event: str,
        data: str | None,
        id: str | None,
        retry: int | None,
        raw: bytes,
        start: int,
        end: int,
        t_first: float,
        t_last: float,
    ) -> SSEEvent:
        """An event from its fields (``data`` None: derived from ``raw`` on each read)."""
        self = cls()
        self.index = index
        own_start = None if start == end - len(raw) else start
        self._meta = (
            None
            if event == "message"
            and data is None
            and id is None
            and retry is None
            and own_start is None
            else (event, data, id, retry, own_start)
        )
        self._buf = raw
        self._at = 0
        self._stop = len(raw)
        self.end = end
        self.t_first = t_first
        self.t_last = t_last
        return self

    @property
    def raw(self) -> bytes:
        """The event's bytes, exactly as received (a slice of the read it came in, made now)."""
        buf = self._buf
        at = self._at
        stop = self._stop
        if at == 0 and stop == len(buf):
            return buf
        return buf[at:stop]

    @raw.setter
    def raw(self, value: bytes) -> None:
        self._buf = value
        self._at = 0
        self._stop = len(value)

    @property
    def size(self) -> int:
        """``len(raw)``, without making ``raw``."""
        return self._stop - self._at

    def raw_startswith(self, prefix: bytes) -> bool:
        """``raw.startswith(prefix)``, without making ``raw``."""
        return self._buf.startswith(prefix, self._at, self._stop)

    @property
    def event(self) -> str:
        meta = self._meta
        return "message" if meta is None else meta[0]

    @event.setter
    def event(self, value: str) -> None:
        self._set(0, value)

    @property
    def data(self) -> str:
        meta = self._meta
        if meta is None or meta[1] is None:
            return _data_of_span(self._buf, self._at, self._stop)
        return meta[1]

    @data.setter
    def data(self, value: str | None) -> None:
        self._set(1, value)

    @property
    def id(self) -> str | None:
        meta = self._meta
        return None if meta is None else meta[2]

    @id.setter
    def id(self, value: str | None) -> None:
        self._set(2, value)

    @property
    def retry(self) -> int | None:
        meta = self._meta
        return None if meta is None else meta[3]

    @retry.setter
    def retry(self, value: int | None) -> None:
        self._set(3, value)

    @property
    def start(self) -> int:
        """Stream offset of the event's first byte (``end - len(raw)`` unless stored)."""
        meta = self._meta
        if meta is None or meta[4] is None:
            return self.end - (self._stop - self._at)
        return meta[4]

    @start.setter
    def start(self, value: int) -> None:
        # Stored once set by hand: a later change of ``end`` must not move it.
        self._set(4, value)

    def _set(self, field: int, value: object) -> None:
        meta: list[object] = list(self._meta or ("message", None, None, None, None))
        meta[field] = value
        event, data, id_, retry, own_start = meta
        assert isinstance(event, str)
        assert data is None or isinstance(data, str)
        assert id_ is None or isinstance(id_, str)
        assert retry is None or isinstance(retry, int)
        assert own_start is None or isinstance(own_start, int)
        if (
            event == "message"
            and data is None
            and id_ is None
            and retry is None
            and own_start is None
        ):
            self._meta = None
        else:
            self._meta = (event, data, id_, retry, own_start)

    @property
    def data_is_derived(self) -> bool:
        """True when ``data`` is derived from ``raw`` on each read (no str kept)."""
        meta = self._meta
        return meta is None or meta[1] is None

    def release_data(self) -> None:
        """Drop a stored ``data`` str if ``raw`` gives back exactly the same text."""
        meta = self._meta
        if meta is not None and meta[1] is not None and data_of_raw(self.raw) == meta[1]:
            self._set(1, None)

    def _key(self) -> tuple[object, ...]:
        return (
            self.index,
            self.event,
            self.data,
            self.id,
            self.retry,
            self.raw,
            self.start,
            self.end,
            self.t_first,
            self.t_last,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SSEEvent):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return (
            f"SSEEvent.make(index={self.index!r}, event={self.event!r}, data={self.data!r}, "
            f"id={self.id!r}, retry={self.retry!r}, raw={self.raw!r}, start={self.start!r}, "
            f"end={self.end!r}, t_first={self.t_first!r}, t_last={self.t_last!r})"
        )


# event, data (None: derived), id, retry, start (None: derived)
_Meta = tuple[str, str | None, str | None, int | None, int | None]


def all_start_with(items: Sequence[SSEItem], prefix: bytes) -> bool:
    """Whether every item is an event whose ``raw`` starts with ``prefix`` (none is made)."""
    for item in items:
        if type(item) is not SSEEvent or not item.raw_startswith(prefix):
            return False
    return True


def data_of_raw(raw: bytes) -> str:
    """The ``data`` of the event whose bytes are ``raw``: its `data` field values joined with LF,
    decoded as UTF-8 with replacement (WHATWG §9.2.6; comment and other lines are skipped)."""
    return _data_of_span(raw, 0, len(raw))


def _data_of_span(buf: bytes, at: int, stop: int) -> str:
    """``data_of_raw(buf[at:stop])``; the one-line event's value is sliced from ``buf`` once."""
    if (
        stop - at >= 8
        and buf[stop - 1] == 10
        and buf[stop - 2] == 10
        and buf.startswith(b"data: ", at)
        and buf.find(b"\n", at, stop) == stop - 2
    ):
        # The one-line event (almost every provider): no CR can precede the first LF here
        # unless it is inside the value, which a CR would have ended; check it.
        value = buf[at + 6 : stop - 2]
        if 13 not in value:
            try:  # strict first: cheaper than naming the handler; same text when it succeeds
                return value.decode()
            except UnicodeDecodeError:
                return value.decode("utf-8", "replace")
    raw = buf if at == 0 and stop == len(buf) else buf[at:stop]
    return data_bytes_of_raw(raw).decode("utf-8", "replace")


def data_bytes_of_raw(raw: bytes) -> bytes:
    """``data_of_raw`` before its UTF-8 decode: the `data` values joined with LF, as bytes."""
    spans = data_spans_of_raw(raw)
    if spans is not None:
        # LF only: copy only the values, so a multi-megabyte image event with an `event:` line
        # costs one copy and one decode.
        if len(spans) == 1:
            start, stop = spans[0]
            return raw[start:stop]
        return b"\n".join([raw[start:stop] for start, stop in spans])
    values: list[bytes] = []
    for line in _LINE_END.split(raw):
        if line[:4] != b"data":
            continue
        name, _, value = line.partition(b":")
        if name != b"data":
            continue
        values.append(value[1:] if value[:1] == b" " else value)
    return b"\n".join(values)


def data_spans_of_raw(raw: bytes) -> list[tuple[int, int]] | None:
    """Where in ``raw`` each `data` value lies, (start, stop), in order; None if ``raw`` has a
    CR (its lines are then split by ``data_bytes_of_raw`` itself). Lines are walked with find
    (memchr speed), so a reader can take a multi-megabyte value without copying it."""
    if 13 in raw:
        return None
    spans: list[tuple[int, int]] = []
    pos = 0
    size = len(raw)
    while pos < size:
        stop = raw.find(b"\n", pos)
        if stop < 0:
            stop = size
        if raw.startswith(b"data", pos):
            colon = pos + 4
            if colon == stop:
                spans.append((stop, stop))  # `data` with no colon: the whole line is the name
            elif raw[colon] == _COLON:
                colon += 1
                if colon < stop and raw[colon] == 32:
                    colon += 1
                spans.append((colon, stop))
        pos = stop + 1
    return spans


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

    @property
    def size(self) -> int:
        return len(self.raw)


class SSEUnterminated:
    """Bytes left at end of stream without the blank line that would dispatch them (never fired).

    Its bytes are kept as the pieces the stream brought them in, and ``raw`` joins them when
    read: an endless line is megabytes of reads which the reader keeps anyway (a capture's
    chunks, a run's record); joined at the end of the stream it was a second copy of all of them
    (``playground bench --only hostile``). ``size`` and ``head`` read the pieces.
    """

    __slots__ = ("_pieces", "data", "end", "event", "fields", "index", "start", "t_first", "t_last")

    index: int
    event: str | None
    data: str | None
    _pieces: list[bytes]
    start: int
    end: int
    t_first: float
    t_last: float
    fields: list[str]

    def __init__(
        self,
        index: int,
        event: str | None,
        data: str | None,
        raw: bytes | bytearray | list[Any],
        start: int,
        end: int,
        t_first: float,
        t_last: float,
        fields: list[str] | None = None,
    ) -> None:
        self.index = index
        self.event = event
        self.data = data
        # Bytes only (bytes() of bytes is the same object): a buffer a caller may reuse is copied.
        self._pieces = [bytes(p) for p in raw if p] if isinstance(raw, list) else [bytes(raw)]
        self.start = start
        self.end = end
        self.t_first = t_first
        self.t_last = t_last
        self.fields = [] if fields is None else fields

    @property
    def raw(self) -> bytes:
        """The bytes, joined anew on each read when they came in more than one piece."""
        pieces = self._pieces
        if len(pieces) == 1:
            return pieces[0]
        return b"".join(pieces)

    @property
    def size(self) -> int:
        return sum(map(len, self._pieces))

    def head(self, limit: int) -> bytes:
        """The first ``limit`` bytes, joined from the first pieces only."""
        out: list[bytes] = []
        wanted = limit
        for piece in self._pieces:
            if wanted <= 0:
                break
            out.append(piece[:wanted])
            wanted -= len(piece)
        return b"".join(out)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SSEUnterminated):
            return NotImplemented
        return (
            self.index == other.index
            and self.event == other.event
            and self.data == other.data
            and self.start == other.start
            and self.end == other.end
            and self.t_first == other.t_first
            and self.t_last == other.t_last
            and self.fields == other.fields
            and self.size == other.size
            and self.raw == other.raw
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def __repr__(self) -> str:
        return (
            f"SSEUnterminated(index={self.index!r}, event={self.event!r}, data={self.data!r}, "
            f"raw={self.raw!r}, start={self.start!r}, end={self.end!r}, "
            f"t_first={self.t_first!r}, t_last={self.t_last!r}, fields={self.fields!r})"
        )


SSEItem = SSEEvent | SSEComment | SSEUnterminated

# What ``feed`` returns when a chunk completes nothing (most chunks of a token stream): one shared
# empty tuple instead of a new list per call (per-chunk cost decides small reads).
_NOTHING: Final[tuple[()]] = ()
# A read up to this size rarely completes more than one event (tokens over a real network come
# in reads of tens of bytes); ``feed`` tries its one-event path on those only, since a bigger
# read (a loaded socket's 4 KiB) holds several and goes straight to the loop in ``_cut_lf``.
_SMALL: Final = 512


class SSEParser:
    """Feed bytes with their arrival time; get back the items they complete. Never raises."""

    __slots__ = (
        "_base",
        "_bom_checked",
        "_data_lines",
        "_ev_parts",
        "_ev_start",
        "_ev_t",
        "_event_type",
        "_finished",
        "_held",
        "_id_meta",
        "_index",
        "_last_id",
        "_line_t",
        "_parts",
        "_retry",
    )

    def __init__(self) -> None:
        # Bytes not yet cut into lines. Either _parts: pieces of the current partial line (no CR or
        # LF in them), or _held: bytes that need the careful path at the next chunk (a line ending
        # in a CR that may be half of a CRLF, or the first bytes of a possible BOM). Never both.
        self._parts: list[bytes] = []
        self._held = b""
        self._base = 0  # stream offset of the first byte in _parts / _held
        self._line_t = 0.0  # arrival time of that byte
        self._bom_checked = False
        self._finished = False
        # The event being assembled (WHATWG's buffers), and its bytes from earlier chunks.
        # How many `data` lines the open event has: its data is derived from its raw bytes
        # (SSEEvent.data), so the values are never copied out of a line (a 2.7 MB image line).
        self._data_lines = 0
        self._event_type: bytes | None = None
        self._retry: int | None = None
        self._last_id: str | None = None  # never reset between events (WHATWG; docs/protocol.md §1)
        self._id_meta: _Meta | None = None  # SSEEvent's shared slot for a `message` with that id
        self._ev_start: int | None = None  # stream offset of the current event's first line
        self._ev_t = 0.0
        self._ev_parts: list[bytes] = []  # the event's bytes in [_ev_start, _base)
        self._index = 0

    @property
    def offset(self) -> int:
        """Bytes received so far."""
        return self._base + len(self._held) + sum(map(len, self._parts))

    @property
    def last_event_id(self) -> str | None:
        return self._last_id

    def feed(self, chunk: bytes, t: float = 0.0) -> Sequence[SSEItem]:
        """Take one chunk that arrived at time ``t``; return the items it completes, in order."""
        # Hot paths first (tokens in small reads cost per chunk, not per byte).
        if 10 in chunk:
            parts = self._parts
            if not parts or 13 in chunk:
                return self._feed_rare(chunk, t)
            if self._ev_start is not None or len(chunk) > _SMALL:
                parts.append(chunk)
                if self._ev_parts:
                    return self._cut_open_event(t)
                return self._cut_joined(b"".join(parts), t)
            # A small read's line end completes the line begun in earlier chunks. Most often that
            # line is a whole `data:` event and nothing after it is complete yet: built right here
            # (the earlier pieces hold no line end, so the event is one line if the read's part
            # up to its first blank line holds none either).
            line_end, blank, rest = chunk.partition(b"\n\n")
            if not blank or 10 in line_end or 10 in rest:
                parts.append(chunk)
                return self._cut_joined(b"".join(parts), t)
            parts.append(line_end)
            parts.append(blank)
            raw = b"".join(parts)
            if raw[:6] != b"data: ":
                return self._cut_joined(raw + rest, t)  # another field: the careful path
            index = self._index
            end = self._base + len(raw)
            event = SSEEvent()  # its slots stored here (see SSEEvent)
            event.index = index
            event._meta = None if self._last_id is None else self._meta()
            event._buf = raw
            event._at = 0
            event._stop = len(raw)
            event.end = end
            event.t_first = self._line_t
            event.t_last = t
            self._index = index + 1
            self._line_t = t  # what is left starts after a line end in this chunk
            self._parts = [rest] if rest else []
            self._base = end
            return [event]
        if 13 in chunk:
            return self._feed_lines(chunk, t)
        # No line end (most chunks of a token stream): keep the piece for later.
        parts = self._parts
        if parts:
            parts.append(chunk)
            return _NOTHING
        if self._held or not self._bom_checked:
            return self._feed_lines(chunk, t)
        if chunk and not self._finished:
            self._line_t = t
            parts.append(chunk)
        return _NOTHING

    def finish(self, t: float = 0.0) -> list[SSEItem]:
        """End of stream: a held CR completes its line; an unterminated event is reported."""
        if self._finished:
            return []
        self._finished = True
        out: list[SSEItem] = []
        held = self._held
        if held and self._bom_checked:
            # End of file decides it: the held CR was a whole line end.
            self._held = b""
            consumed = self._cut_any(held, self._base, len(held), t, out)
            self._parts = [held[consumed:]] if consumed < len(held) else []
            self._base += consumed
        # The line begun and never ended stays in the pieces it came in (SSEUnterminated).
        tail = [self._held, *self._parts]
        self._held, self._parts = b"", []
        base = self._base
        received = sum(map(len, tail))
        self._base = base + received  # offset stays the number of bytes received
        start = self._ev_start
        if start is None and not received:
            return out
        lines = b"".join(self._ev_parts)
        event_type = self._event_type
        out.append(
            SSEUnterminated(
                self._index,
                event_type.decode("utf-8", "replace") if event_type else None,
                data_bytes_of_raw(lines).decode("utf-8", "replace") if self._data_lines else None,
                [lines, *tail],
                base if start is None else start,
                self._base,
                self._line_t if start is None else self._ev_t,
                t,
                _field_names(lines),
            )
        )
        self._index += 1
        self._data_lines, self._event_type, self._ev_start, self._ev_parts = 0, None, None, []
        return out

    # -- internals -------------------------------------------------------------------------

    def _meta(self) -> _Meta | None:
        """The shared ``SSEEvent._meta`` of a ``message`` event with derived data (one tuple for
        every event while the last event id stays the same)."""
        last_id = self._last_id
        if last_id is None:
            return None
        meta = self._id_meta
        if meta is None or meta[2] != last_id:
            meta = self._id_meta = ("message", None, last_id, None, None)
        return meta

    def _feed_lines(self, chunk: bytes, t: float) -> Sequence[SSEItem]:
        """The careful path: cut everything up to the last line end into lines and process them."""
        parts = self._parts
        if not parts or 13 in chunk:  # (finish() empties _parts, so this also catches "finished")
            return self._feed_rare(chunk, t)
        # A line end (LF only) completes the line begun in earlier chunks.
        parts.append(chunk)
        return self._cut_joined(b"".join(parts), t)

    def _cut_joined(self, data: bytes, t: float, kept: int = 0) -> list[SSEItem]:
        """LF-only ``data`` (the pieces so far and the chunk, joined) from ``_base`` on: cut every
        complete line, keep the rest as the line begun. ``kept``: ``data`` begins with that many
        bytes of the open event's lines, already read (``_cut_open_event``)."""
        base = self._base - kept
        stop = data.find(b"\n")
        out: list[SSEItem]
        if self._ev_start is None and data[stop + 1 : stop + 2] == b"\n" and data[:6] == b"data: ":
            # Inlined for tokens in small chunks: the line begun earlier is a whole `data:` event.
            pos = stop + 2
            index = self._index
            end = base + pos
            event = SSEEvent()  # its slots stored here (see SSEEvent)
            event.index = index
            event._meta = None if self._last_id is None else self._meta()
            event._buf = data
            event._at = 0
            event._stop = pos
            event.end = end
            event.t_first = self._line_t
            event.t_last = t
            out = [event]
            self._index = index + 1
            if data.find(b"\n", pos) >= 0:
                pos = self._cut_lf(data, base, t, out, pos, t)
                end = base + pos
        else:
            out = []
            pos = self._cut_lf(data, base, t, out, kept, self._line_t)
            end = base + pos
        self._line_t = t  # what is left starts after a line end in this chunk
        self._parts = [data[pos:]] if pos < len(data) else []
        _settle(out, data)
        self._base = end
        return out

    def _cut_open_event(self, t: float) -> list[SSEItem]:
        """``_cut_joined`` for an event whose first lines were kept (``_ev_parts``): those and
        the pieces since are joined once, so its ``raw`` is a slice of that join, and the join
        itself when the read ends with the event. Joined apart, a 2.7 MB partial image with an
        `event:` line was copied twice, each copy of fresh memory costing 2-3 ms of page faults
        on the reader thread (measured on a 2-core VM)."""
        kept = self._ev_parts
        self._ev_parts = []
        return self._cut_joined(b"".join([*kept, *self._parts]), t, sum(map(len, kept)))

    def _feed_rare(self, chunk: bytes, t: float) -> Sequence[SSEItem]:
        """Everything else: the first chunk (BOM), a held CR, CR line ends, a chunk after finish."""
        if self._finished or not chunk:
            return _NOTHING
        parts = self._parts
        cr = 13 in chunk
        if parts:
            parts.append(chunk)
            data = b"".join(parts)
        elif self._held or not self._bom_checked:
            held = self._held
            # Its events may share it (SSEEvent._buf): the read itself when nothing was held.
            data = held + chunk if held or type(chunk) is not bytes else chunk
            self._held = b""
            if not held:
                self._line_t = t
            if not self._bom_checked:
                if len(data) < 3 and _BOM.startswith(data):
                    self._held = data
                    return _NOTHING
                self._bom_checked = True
                if data[:3] == _BOM:
                    # One BOM at the very start only (WHATWG); its bytes still count in offsets.
                    data = data[3:]
                    self._base += 3
                    self._line_t = t  # the first byte after the BOM came in this chunk
            else:
                cr = True  # a held CR
        else:
            self._line_t = t
            # Its events may share it (SSEEvent._buf): bytes, never a buffer the caller reuses
            # (the build refuses anything but bytes at the call; the source takes any buffer).
            data = chunk if type(chunk) is bytes else bytes(chunk)
        base = self._base
        out: list[SSEItem] = []
        if cr:
            end = len(data)
            if end and data[-1] == _CR:
                end -= 1  # a CR at the end of a chunk may be half of a CRLF: wait for the next byte
            consumed = self._cut_any(data, base, end, t, out)
            if end < len(data):
                self._held = data[consumed:]
                self._parts = []
                self._base = base + consumed
                if consumed:
                    self._line_t = t
                return out
        else:
            consumed = self._cut_lf(data, base, t, out, 0, self._line_t)
            _settle(out, data)
        if consumed:
            self._line_t = t  # what is left starts after a line end in this chunk
        self._parts = [data[consumed:]] if consumed < len(data) else []
        self._base = base + consumed
        return out

    def _cut_lf(
        self, data: bytes, base: int, t: float, out: list[SSEItem], pos: int, t_line: float
    ) -> int:
        """LF-only bytes from ``pos`` (a line start): process every complete line; return the
        offset after the last one. ``t_line`` is when the byte at ``pos`` arrived."""
        find = data.find
        stop = find(b"\n", pos)
        if self._ev_start is None and data.startswith(b"data: ", pos):
            # The common case, back to back: an event that is one `data: ` line and a blank line.
            size = len(data)
            index = self._index
            meta = self._meta()
            compiled = _COMPILED
            while stop >= 0:
                after = stop + 2
                # One test for "blank line, then another `data: ` line" (most events). Measured:
                # interpreted, a slice compare costs a third less than startswith's argument
                # parsing; compiled, reading the bytes one by one (native, no object) beats the
                # slice (a new bytes object per event) by a tenth of the whole parse, while
                # interpreted it would cost a third more. So each build takes its own.
                if compiled:
                    last = not (
                        stop + 8 <= size
                        and data[stop + 1] == 10
                        and data[stop + 2] == 100  # d
                        and data[stop + 3] == 97  # a
                        and data[stop + 4] == 116  # t
                        and data[stop + 5] == 97  # a
                        and data[stop + 6] == 58  # :
                        and data[stop + 7] == 32
                    )
                else:
                    last = data[stop : stop + 8] != b"\n\ndata: "
                # ... else a blank line before anything else ends this run after this event.
                if last and (after > size or data[stop + 1] != 10):
                    break
                # No decode here: `data` is derived from `raw` when read, and `start` from `end`
                # and `raw` (SSEEvent). The slots are stored right here.
                event = SSEEvent()
                event.index = index
                event._meta = meta
                event._buf = data
                event._at = pos
                event._stop = after
                event.end = base + after
                event.t_first = t_line
                event.t_last = t
                out.append(event)  # compiled, a list append of its own (no bound method call)
                index += 1
                pos = after
                t_line = t
                stop = find(b"\n", pos)
                if last:
                    break
            self._index = index
        # Anything else, line by line up to the last line end (found in place: no line is
        # copied out of ``data`` just to be looked at).
        while stop >= 0:
            after = stop + 1
            self._line(data, base, pos, stop, after, t_line, t, out)
            pos = after
            t_line = t
            stop = find(b"\n", pos)
        if self._ev_start is not None:
            self._keep_event_bytes(data, base, pos)
        return pos

    def _cut_any(self, data: bytes, base: int, end: int, t: float, out: list[SSEItem]) -> int:
        """Bytes that may hold CR: cut on CRLF, CR or LF before ``end``; return bytes consumed."""
        pos = 0
        t_line = self._line_t
        for match in _LINE_END.finditer(data, 0, end):
            stop, after = match.span()
            self._line(data, base, pos, stop, after, t_line, t, out)
            pos = after
            t_line = t
        self._keep_event_bytes(data, base, pos)
        return pos

    def _keep_event_bytes(self, data: bytes, base: int, consumed: int) -> None:
        # An event still open keeps the bytes of its lines so far, for its `raw` when it completes.
        start = self._ev_start
        if start is not None and consumed:
            self._ev_parts.append(data[max(start - base, 0) : consumed])

    def _line(
        self,
        data: bytes,
        base: int,
        pos: int,
        stop: int,
        after: int,
        t_line: float,
        t: float,
        out: list[SSEItem],
    ) -> None:
        """The line ``data[pos:stop]`` (its terminator ends at ``after``) per WHATWG §9.2.6."""
        if stop == pos:
            self._dispatch(data, base, after, t, out)
            return
        if data[pos] == _COLON:
            text = data[pos + 1 : stop]
            if text[:1] == b" ":
                text = text[1:]
            out.append(
                SSEComment(
                    self._index,
                    text.decode("utf-8", "replace"),
                    data[pos:after],
                    base + pos,
                    base + after,
                    t_line,
                    t,
                )
            )
            self._index += 1
            return
        if self._ev_start is None:
            self._ev_start = base + pos
            self._ev_t = t_line
        colon = data.find(b":", pos, stop)
        name_end = stop if colon < 0 else colon
        size = name_end - pos
        if size == 4 and data.startswith(b"data", pos):
            self._data_lines += 1  # the value stays in the line: data is derived from raw
            return
        if size > 5:
            return  # no field we read has a name this long: ignored (WHATWG), bytes kept
        name = data[pos:name_end]
        value = b""
        if colon >= 0:
            value = data[colon + 2 if data[colon + 1 : colon + 2] == b" " else colon + 1 : stop]
        if name == b"event":
            self._event_type = value
        elif name == b"id":
            if 0 not in value:
                self._last_id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():  # bytes.isdigit: ASCII digits only
            self._retry = int(value)
        # Any other field name is ignored (WHATWG), but it still belongs to this event's bytes.

    def _dispatch(self, data: bytes, base: int, after: int, t: float, out: list[SSEItem]) -> None:
        """A blank line ending at ``after`` (offset in ``data``): fire the event, if it has data."""
        start = self._ev_start
        if start is None:
            return  # a blank line with no fields before it: nothing to dispatch
        if self._data_lines:
            if start >= base:
                raw = data[start - base : after]
            else:  # one copy of a long event's bytes, not two (a view of ``data``'s part)
                raw = b"".join([*self._ev_parts, memoryview(data)[:after]])
            event_type = self._event_type
            out.append(
                SSEEvent.make(
                    self._index,
                    event_type.decode("utf-8", "replace") if event_type else "message",
                    None,  # derived from raw when read: data_of_raw re-runs the field rules
                    self._last_id,
                    self._retry,
                    raw,
                    start,
                    base + after,
                    self._ev_t,
                    t,
                )
            )
            self._index += 1
            self._data_lines = 0
        # Otherwise the data buffer is empty: reset and fire nothing (WHATWG), e.g. after `id:`.
        self._event_type = None
        self._retry = None
        self._ev_start = None
        if self._ev_parts:
            self._ev_parts = []


# An event at least this long keeps bytes of its own unless it is its whole read: its ``raw`` is
# then not copied again on each read (a partial image's 2.7 MB are read by the decoder, the
# inspector and the image view).
_OWN_LONG: Final = 16384


def _settle(out: list[SSEItem], data: bytes) -> None:
    """The events just cut from ``data`` that share it (``SSEEvent._buf``) keep it only while
    they hold most of it; otherwise, and when long, each gets bytes of its own.

    A few small events must not hold a 64 KiB read whose rest is the start of a long line (which
    the parser keeps a copy of anyway), and a long event that is not its whole read would be
    copied out on each read of its ``raw``.
    """
    size = len(data)
    held = 0
    longest = 0
    for item in out:
        if type(item) is SSEEvent and item._buf is data:
            length = item._stop - item._at
            held += length
            longest = max(longest, length)
    if held == size and (longest < _OWN_LONG or longest == size):
        return  # the usual read: its events are all of it
    sparse = 2 * held < size
    for item in out:
        if type(item) is SSEEvent and item._buf is data:
            at = item._at
            stop = item._stop
            if sparse or (stop - at >= _OWN_LONG and not (at == 0 and stop == size)):
                item._buf = data[at:stop]
                item._at = 0
                item._stop = stop - at


def _field_names(lines: bytes) -> list[str]:
    """Names of the fields in an unterminated event's complete lines (comments left out)."""
    names = []
    for line in _LINE_END.split(lines)[:-1]:
        if line and line[0] != _COLON:
            names.append(line.partition(b":")[0].decode("utf-8", "replace"))
    return names


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
