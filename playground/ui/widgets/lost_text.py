"""Where an answer lost text: the offsets of events that could not be read (bad JSON)."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.protocol.state import Finding, TextBuffer

    from .gap_marks import Gap

__all__ = ["LOST_CODES", "gap_offsets", "lost_count"]

# Findings whose event carried content that never reached the text: the data line was cut or
# malformed, so whatever it held is missing at that place (PROTOCOL.md §0: never silent).
LOST_CODES = frozenset({"invalid_json"})


def gap_offsets(
    text: TextBuffer,
    findings: list[Finding],
    seen: set[int] | None = None,
    rivals: tuple[TextBuffer, ...] = (),
    *,
    wins_ties: bool = True,
) -> list[Gap]:
    """A ``Gap`` for each unreadable event that ``text`` lost: the offset where the next readable
    piece of ``text`` begins after it (its end if none came), the event and the finding's words.
    Sorted, one per event; ``seen`` (updated) holds the events already placed by an earlier call.

    An unreadable event says nothing of which text it carried: it is taken to be the one whose
    pieces came nearest to it, so a lost thinking delta is marked in the thinking, not at the
    answer's start. ``rivals``: the run's other texts; a tie goes to ``text`` if ``wins_ties``
    (the answer's view), else to the rival.
    """
    from .gap_marks import Gap

    items, starts = text.origins.items, text.origins.starts
    gaps: list[Gap] = []
    seen = set() if seen is None else seen
    for finding in findings:
        item = finding.item
        if finding.code not in LOST_CODES or item is None or item in seen:
            continue
        mine = _distance(text, item)
        if any(
            (d := _distance(rival, item)) < mine or (d == mine and not wins_ties)
            for rival in rivals
        ):
            continue  # another text's: that view marks it
        seen.add(item)
        at = bisect.bisect_right(items, item)  # items grow with the offsets (arrival order)
        offset = starts[at] if at < len(starts) else len(text)
        gaps.append(Gap(offset, item, f"event #{item}: {finding.message}"))
    gaps.sort(key=lambda gap: gap.offset)
    return gaps


def lost_count(findings: list[Finding]) -> int:
    """How many events could not be read (whichever text they carried)."""
    return len({f.item for f in findings if f.code in LOST_CODES and f.item is not None})


def _distance(text: TextBuffer, item: int) -> float:
    """How far (in events) ``item`` is from the nearest piece of ``text``; inf if it has none."""
    items = text.origins.items
    at = bisect.bisect_right(items, item)
    near = [item - items[at - 1]] if at else []
    if at < len(items):
        near.append(items[at] - item)
    return min(near, default=float("inf"))
