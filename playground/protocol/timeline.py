"""What the inspector's timeline shows of an item, derived lazily from the item itself.

Pure, so the Qt model only shows (docs/design.md: "Qt only shows state"): each item's type name (the
"Type" column), its parsed payload when the view has no decoder to ask, and an item rebuilt from
its raw bytes when those are all a view keeps. Nothing here adds a per-item object: a view keeps
one small id per row (``ItemTypes.id_of``) and asks for the rest when a row is drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Final

from playground.protocol import safe_json
from playground.protocol.event_json import is_done
from playground.protocol.sse import (
    SSEComment,
    SSEEvent,
    SSEItem,
    SSEUnterminated,
    all_start_with,
    parse_all,
)
from playground.protocol.summary import event_type

__all__ = ["ItemTypes", "item_payload", "raw_type", "raw_type_at", "rebuild_item"]

_TYPE_PREFIX: Final = '{"type":"'
_RAW_TYPE_PREFIX: Final = b'{"type":"'
_RAW_CHUNK_MARKER: Final = b'"chat.completion.chunk"'
_EVENT: Final = attrgetter("event")
_BULK: Final = 16  # items from which a batch is first tried as one run of the hot type


def item_payload(item: SSEItem) -> object | None:
    """The parsed JSON of an event's data; None for comments, ``[DONE]`` and what is not JSON."""
    if type(item) is not SSEEvent or is_done(item.data):
        return None
    try:
        value: object = safe_json.loads(item.data)
    except ValueError:
        return None
    return value


def raw_type(raw: bytes) -> str | None:
    """An event's type read from its raw bytes when its first line is a ``data: `` field, so
    ``data`` need not be decoded for it (its text starts with that line's value). None when
    only ``data`` can tell."""
    typed = raw_type_at(raw)
    return None if typed is None else typed[0]


def raw_type_at(raw: bytes) -> tuple[str, int] | None:
    """``raw_type`` with the length of the prefix that decided it: any raw bytes that start
    with that prefix get the same answer (a stream's chunks share it up to their type, which is
    how ``ItemTypes.id_of`` skips this for most events)."""
    if raw[:6] != b"data: ":
        return None
    if raw[6:15] == _RAW_TYPE_PREFIX:
        end = raw.find(b'"', 15)
        name = raw[15:end]
        if end < 0 or 10 in name or 13 in name:
            return None  # the quote (if any) is on a later line: let ``data`` decide
        return name.decode("utf-8", "replace"), end + 1
    # The marker on that first line, within its first 200 bytes, is within data's first 200
    # characters.
    head = raw[6:206]
    found = head.find(_RAW_CHUNK_MARKER)
    if found >= 0 and 10 not in head[:found] and 13 not in head[:found]:
        return "chunk", 6 + found + len(_RAW_CHUNK_MARKER)
    return None


def rebuild_item(row: int, raw: bytes, start: int, end: int, t: float) -> SSEItem:
    """The timeline item whose raw bytes are ``raw`` (a view that keeps only the bytes)."""
    if raw.startswith(b"data:") and raw.endswith(b"\n\n") and raw.count(10) == 2 and 13 not in raw:
        # The common one-line event (``data: {...}`` + blank line): no parser needed.
        value = raw[5:-2]
        if value[:1] == b" ":
            value = value[1:]
        text = value.decode("utf-8", "replace")
        return SSEEvent.make(row, "message", text, None, None, raw, start, end, t, t)
    parsed = parse_all(raw)
    # The event dispatches last (a comment inside an event's lines comes out first).
    item: SSEItem
    if parsed:
        item = parsed[-1]
    else:  # pragma: no cover - raw bytes of an item always parse to that item
        item = SSEUnterminated(row, None, raw.decode("utf-8", "replace"), raw, 0, 0, 0.0, 0.0)
    item.index = row
    item.start = start
    item.end = end
    item.t_first = item.t_last = t
    return item


class ItemTypes:
    """Type names interned as small ids, one id per item, found as cheaply as the item allows.

    ``payload_of`` gives an item's parsed JSON for the rare item only its data can type (the
    view's decoder cache, or ``item_payload``); ``on_new`` is told of each new type name.
    """

    __slots__ = ("_hot_prefix", "_hot_type", "_ids", "names", "on_new", "payload_of")

    def __init__(
        self,
        payload_of: Callable[[SSEItem], object | None] = item_payload,
        on_new: Callable[[], object] | None = None,
    ) -> None:
        self.names: list[str] = []
        self._ids: dict[str, int] = {}
        self._hot_prefix = b""
        self._hot_type = 0
        self.payload_of = payload_of
        self.on_new = on_new

    def id_of_name(self, name: str) -> int | None:
        return self._ids.get(name)

    def ids_of(self, items: Sequence[SSEItem]) -> Iterable[int]:
        """``id_of`` of each item. A batch that is all plain events starting with the hot
        prefix (a flood's 4,000 chat chunks between two timeline updates) is checked in three
        passes that stay in C, not one Python call per item: 0.15 instead of 0.5 us an item,
        and the UI thread adds a frame's rows in a third of the time."""
        hot = self._hot_prefix
        if (
            hot
            and len(items) >= _BULK
            and set(map(type, items)) == {SSEEvent}
            and set(map(_EVENT, items)) == {"message"}
            and all_start_with(items, hot)
        ):
            return repeat(self._hot_type, len(items))
        return map(self.id_of, items)

    def id_of(self, item: SSEItem) -> int:
        """The id of ``item``'s type name (interned on first sight)."""
        # The fast path (once per event at full speed, the timeline benchmark): a plain event
        # whose raw bytes start with the prefix that decided the previous raw-typed event's
        # type has that type.
        hot = self._hot_prefix
        if hot and type(item) is SSEEvent and item.raw_startswith(hot) and item.event == "message":
            return self._hot_type
        name: str
        if isinstance(item, SSEComment):
            name = "comment"
        elif isinstance(item, SSEUnterminated):
            name = "unterminated"
        elif item.event != "message":
            name = item.event
        elif (typed := raw_type_at(item.raw)) is not None:
            name, decided = typed
            found = self._intern(name)
            if type(item) is SSEEvent:
                self._hot_prefix = item.raw[:decided]
                self._hot_type = found
            return found
        else:
            data = item.data
            # Cheap paths first: parsing every chunk again just for its type would double the
            # JSON cost of the stream (measured by the timeline benchmark). Most providers put
            # "type" first, or are chat.
            if data.startswith(_TYPE_PREFIX):
                end = data.find('"', len(_TYPE_PREFIX))
                name = data[len(_TYPE_PREFIX) : end] if end > 0 else "message"
            elif '"chat.completion.chunk"' in data[:200]:
                name = "chunk"
            else:
                name = event_type(item, self.payload_of(item))
        return self._intern(name)

    def _intern(self, name: str) -> int:
        found = self._ids.get(name)
        if found is None:
            found = self._ids[name] = len(self.names)
            self.names.append(name)
            if self.on_new is not None:
                self.on_new()
        return found
