"""TextBuffer: append-only text that remembers which timeline item carried each piece.

The provenance (``Origins``) is how the text view, timing and compare point from a character
back to its event without re-decoding a route; pieces are joined in groups to bound memory.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Final, overload

__all__ = ["Origins", "TextBuffer"]

_JOIN_EVERY: Final = 64  # TextBuffer pieces joined into one str at a time (memory)
# mypyc's build of this module is an extension module (setup.py): ``extend`` takes its path.
_COMPILED: Final = not __file__.endswith((".py", ".pyc"))


class Origins(Sequence[tuple[int, int]]):
    """Which timeline item carried each piece of a text: ``(start offset, item index)`` pairs.

    A list-like view over two ``array("q")`` columns: 16 bytes a piece instead of a tuple and a
    list slot (about 80), and no object per token for the garbage collector to walk (measured).
    Indexing gives a tuple, iterating gives tuples, slicing gives a list of tuples.
    """

    __slots__ = ("items", "starts")

    def __init__(self) -> None:
        self.starts = array("q")
        self.items = array("q")

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, int]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int] | list[tuple[int, int]]:
        if isinstance(index, slice):
            return list(zip(self.starts[index], self.items[index], strict=True))
        return (self.starts[index], self.items[index])

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.starts, self.items, strict=True)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Origins):
            return self.starts == other.starts and self.items == other.items
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"Origins({list(self)!r})"

    def append(self, pair: tuple[int, int]) -> None:
        self.starts.append(pair[0])
        self.items.append(pair[1])

    def extend(self, pairs: Iterable[tuple[int, int]]) -> None:
        for start, item in pairs:
            self.starts.append(start)
            self.items.append(item)


class TextBuffer:
    """Append-only text that remembers which timeline item carried each piece (for linked views).

    Appending is O(1); ``value`` joins lazily and caches, so widgets that read only the new suffix
    (``since(n)``) never pay for the whole document. A live run's buffer grows on its reader
    thread while the UI thread may read it (ui.session): appending and the join that replaces
    the pieces take one lock, so a join never drops a piece appended meanwhile.
    """

    __slots__ = ("_cache", "_length", "_lock", "_loose", "origins", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.origins = Origins()  # (start offset in text, timeline item index) per piece
        self._length = 0
        self._cache: str | None = ""
        self._loose = 0  # parts[_loose:] are pieces as appended, not yet joined into one
        self._lock = threading.Lock()

    def _compact(self) -> None:
        # A token is a str of its own (about 55 bytes for a few characters): join the recent
        # pieces into one every _JOIN_EVERY, so a million tokens do not keep a million objects
        # (the memory benchmark). Each character is copied once here; `value` joins the rest.
        parts = self.parts
        loose = self._loose
        if len(parts) - loose >= _JOIN_EVERY:
            parts[loose:] = ["".join(parts[loose:])]
            self._loose = loose + 1

    def append(self, text: str, item: int) -> None:
        if not text:
            return
        with self._lock:
            origins = self.origins
            origins.starts.append(self._length)
            origins.items.append(item)
            self.parts.append(text)
            self._length += len(text)
            self._cache = None
            if len(self.parts) - self._loose >= _JOIN_EVERY:
                self._compact()

    def extend(self, texts: list[str], items: Iterable[int]) -> None:
        """Append ``texts[i]`` carried by timeline item ``items[i]``, for each i: the same result
        as ``append`` one by one (empty texts are skipped), with the loops in C."""
        if "" in texts:
            kept = [(text, item) for text, item in zip(texts, items) if text]
            texts = [text for text, _ in kept]
            items = [item for _, item in kept]
        if not texts:
            return
        # The decode benchmark's hot path. Compiled (setup.py), a plain loop runs natively;
        # interpreted, ``accumulate`` keeps it in C (it yields one value more than there are
        # texts: the new length, popped off). ``fromlist`` fills an array from a list a third
        # faster than ``extend`` from an iterator (measured).
        with self._lock:
            self._extend(texts, items)

    def extend_run(self, text: str, sizes: list[int], first: int) -> None:
        """Append ``text``, carried by timeline items ``first``, ``first + 1``, ... in pieces of
        ``sizes[i]`` characters each: the same text and origins as ``append`` of each piece (a
        piece of size 0 carried nothing), kept as one piece (a read's worth of tokens, one str)."""
        if not text:
            return
        with self._lock:
            length = self._length
            starts: list[int] = []
            items: list[int] = []
            item = first
            for size in sizes:
                if size:
                    starts.append(length)
                    items.append(item)
                    length += size
                item += 1
            self._add([text], starts, items, length)

    def _extend(self, texts: list[str], items: Iterable[int]) -> None:
        starts: list[int]
        if _COMPILED:
            length = self._length
            starts = []
            for text in texts:
                starts.append(length)
                length += len(text)
        else:
            starts = list(accumulate(map(len, texts), initial=self._length))
            length = starts.pop()
        self._add(texts, starts, items if type(items) is list else list(items), length)

    def _add(self, pieces: list[str], starts: list[int], items: list[int], length: int) -> None:
        """Under the lock: ``pieces`` appended, their origins (``starts``, ``items``) recorded,
        and the text now ``length`` characters long."""
        self._length = length
        origins = self.origins
        origins.starts.fromlist(starts)
        origins.items.fromlist(items)
        self.parts.extend(pieces)
        self._cache = None
        if len(self.parts) - self._loose >= _JOIN_EVERY:
            self._compact()

    def __len__(self) -> int:
        return self._length

    def __bool__(self) -> bool:
        return self._length > 0

    @property
    def value(self) -> str:
        cache = self._cache
        if cache is not None:
            return cache  # a whole snapshot, however far the appender has gone since
        with self._lock:
            if self._cache is None:
                joined = "".join(self.parts)
                self.parts = [joined] if joined else []
                self._loose = len(self.parts)
                self._cache = joined
            return self._cache

    def pieces(self) -> list[str]:
        """The text as the pieces it is kept in, not joined: ``"".join(pieces())`` is ``value``.

        For readers of a text that may be megabytes (a tool call's arguments): ``value`` joins
        it whole once, and while it does the pieces and the joined copy are both in memory
        (8 MB of arguments read so cost the window 16 MB more, ``playground bench --only
        hostile``)."""
        cache = self._cache
        if cache is not None:
            return [cache] if cache else []
        with self._lock:
            return list(self.parts)  # a snapshot: the appender may go on meanwhile

    def head(self, limit: int) -> str:
        """The first ``limit`` characters, joined from the first pieces only."""
        out: list[str] = []
        wanted = limit
        for piece in self.pieces():
            if wanted <= 0:
                break
            out.append(piece[:wanted])
            wanted -= len(piece)
        return "".join(out)

    def since(self, offset: int) -> str:
        """The text after ``offset`` characters (what a widget showing ``offset`` chars lacks)."""
        return self.value[offset:] if offset < self._length else ""

    def item_at(self, offset: int) -> int | None:
        """The timeline item that carried the character at ``offset``."""
        import bisect

        origins = self.origins
        if not origins or offset < 0 or offset >= self._length:
            return None
        i = bisect.bisect_right(origins.starts, offset) - 1
        return origins.items[i] if i >= 0 else None

    def spans_of(self, item: int) -> list[tuple[int, int]]:
        """Character ranges ``[start, end)`` that timeline item ``item`` contributed."""
        out: list[tuple[int, int]] = []
        starts, items = self.origins.starts, self.origins.items
        last = len(items) - 1
        i = -1
        while True:
            try:
                i = items.index(item, i + 1)  # a C scan, not a Python loop over every piece
            except ValueError:
                return out
            out.append((starts[i], starts[i + 1] if i < last else self._length))
