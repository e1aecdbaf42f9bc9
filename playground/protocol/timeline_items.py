"""The run's timeline items in arrival order, each run of repeated unreadable items kept as one.

A hostile stream of a million ``data:x`` events (8 bytes each) cost about 230 bytes an event
as one ``SSEEvent`` each, 30 times its input (``playground bench --only hostile``). Items that
the decoder could not read (``invalid_json``) or that carry no meaning (comments) are folded
when they repeat the item before them exactly: same bytes, same fields, same arrival time,
right after it in the stream. A folded item keeps no object of its own; reading it makes a copy
of the run's first item with its own index and offsets, so every item is still there, with its
raw bytes, time and findings (they are indexed by item number), and nothing received is lost.

Items that are not folded are kept in one list, so a stream without repeats costs what a list
does (``extend`` is one call per read; the hot paths never look at the runs).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from playground.protocol.sse import SSEComment, SSEEvent, SSEItem

__all__ = ["TimelineItems"]


def _repeats(first: SSEItem, item: SSEItem) -> bool:
    """Whether ``item`` is ``first`` again: the same kind, fields, bytes and single arrival time
    (a fold keeps one time for its run)."""
    t = first.t_last
    if type(item) is not type(first) or item.t_first != t or item.t_last != t or first.t_first != t:
        return False
    if type(item) is SSEEvent and type(first) is SSEEvent:
        return (
            item.data_is_derived
            and first.data_is_derived
            and item.size == first.size
            and item.event == first.event
            and item.id == first.id
            and item.retry == first.retry
            and item.raw == first.raw
        )
    if type(item) is SSEComment and type(first) is SSEComment:
        return item.raw == first.raw and item.text == first.text
    return False


def _copy_at(first: SSEItem, index: int, steps: int) -> SSEItem:
    """``first`` repeated ``steps`` items later in the stream: its own index and offsets."""
    size = first.end - first.start
    start = first.start + steps * size
    if type(first) is SSEEvent:
        return SSEEvent.make(
            index, first.event, None, first.id, first.retry, first.raw, start, start + size,
            first.t_first, first.t_last,
        )  # fmt: skip
    assert type(first) is SSEComment  # only events and comments fold (_repeats)
    end = start + size
    return SSEComment(index, first.text, first.raw, start, end, first.t_first, first.t_last)


class TimelineItems(Sequence[SSEItem]):
    """``StreamDecoder.items``: a sequence of every timeline item, item ``i`` at index ``i``.

    Run ``r`` is the item at ``_firsts[r]`` (kept) followed by ``_counts[r]`` repeats of it
    (folded); ``_folded_before[r]`` is how many items runs before ``r`` folded, so a kept item's
    place in ``_kept`` is its index less the folded items before it.
    """

    __slots__ = ("_counts", "_firsts", "_folded", "_folded_before", "_kept")

    def __init__(self, items: Iterable[SSEItem] = ()) -> None:
        self._kept: list[SSEItem] = list(items)
        self._firsts = array("q")
        self._counts = array("q")
        self._folded_before = array("q")
        self._folded = 0  # items folded in all runs

    # -- growing ---------------------------------------------------------------------------

    def append(self, item: SSEItem) -> None:
        self._kept.append(item)

    def extend(self, items: Iterable[SSEItem]) -> None:
        self._kept.extend(items)

    def fold_repeats(self, indices: Sequence[int]) -> None:
        """Fold each item of ``indices`` (ascending, all added since the last fold) that
        repeats the item before it; the others stay as they are."""
        kept = self._kept
        folded = self._folded  # before this call: every new item's place is index - folded
        drop: set[int] = set()
        firsts, counts = self._firsts, self._counts
        old_runs = len(firsts)  # a run made in this call has its first item where it was
        for index in indices:
            place = index - folded
            if index < 1 or not 1 <= place < len(kept):
                continue
            item = kept[place]
            if firsts and firsts[-1] + counts[-1] == index - 1:
                # The item before is the last run's first item or one of its repeats.
                run = len(firsts) - 1
                before = self._folded_before[run] if run < old_runs else folded
                first = kept[firsts[run] - before]
                steps = index - firsts[run]
            else:
                first = kept[place - 1]
                run, steps = -1, 1
            if item.start != first.end + (steps - 1) * (first.end - first.start):
                continue  # bytes between them (a blank line): not the same stretch of stream
            if not _repeats(first, item):
                continue
            if run < 0:
                firsts.append(index - 1)
                counts.append(0)
                self._folded_before.append(self._folded)
            counts[-1] += 1
            self._folded += 1
            drop.add(place)
        if drop:
            low = min(drop)
            kept[low:] = [it for at, it in enumerate(kept[low:], low) if at not in drop]

    # -- reading ---------------------------------------------------------------------------

    @property
    def folded(self) -> int:
        """How many items are kept only as repeats of their run's first item."""
        return self._folded

    @property
    def runs(self) -> int:
        """How many runs of repeats there are (each keeps one item)."""
        return len(self._firsts)

    def holds(self, item: SSEItem) -> bool:
        """Whether ``item`` is this timeline's item at its index: the same object, or, for a
        folded item (kept only as a repeat), an item with the same offsets and bytes."""
        index = item.index
        if not 0 <= index < len(self):
            return False
        mine = self[index]
        if mine is item:
            return True
        return (
            self._folded > 0
            and type(mine) is type(item)
            and mine.start == item.start
            and mine.end == item.end
            and _repeats(mine, item)
        )

    def __len__(self) -> int:
        return len(self._kept) + self._folded

    def __bool__(self) -> bool:
        return bool(self._kept)

    @overload
    def __getitem__(self, index: int) -> SSEItem: ...

    @overload
    def __getitem__(self, index: slice) -> list[SSEItem]: ...

    def __getitem__(self, index: int | slice) -> SSEItem | list[SSEItem]:
        if isinstance(index, slice):
            return [self._at(i) for i in range(*index.indices(len(self)))]
        if not self._folded:
            return self._kept[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("timeline index out of range")
        return self._at(index)

    def _at(self, index: int) -> SSEItem:
        firsts = self._firsts
        if not firsts or index <= firsts[0]:
            return self._kept[index]
        run = bisect_right(firsts, index) - 1
        first, count = firsts[run], self._counts[run]
        before = self._folded_before[run]
        if index > first + count:
            return self._kept[index - before - count]
        kept = self._kept[first - before]
        return kept if index == first else _copy_at(kept, index, index - first)

    def __iter__(self) -> Iterator[SSEItem]:
        if not self._folded:
            return iter(self._kept)
        return map(self._at, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TimelineItems | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like the list it replaced

    def __repr__(self) -> str:
        return f"TimelineItems({len(self)} items, {self._folded} folded)"
