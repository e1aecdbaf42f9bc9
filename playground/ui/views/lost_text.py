"""Where an answer lost text: the offsets of events that could not be read (bad JSON)."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.protocol.state import Finding, TextBuffer

    from .gap_marks import Gap
    from .live_text import LiveText

__all__ = ["LOST_CODES", "GapFeed", "gap_offsets"]

# Findings whose event carried content that never reached the text: the data line was cut or
# malformed, so whatever it held is missing at that place (docs/protocol.md §0: never silent).
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


def _distance(text: TextBuffer, item: int) -> float:
    """How far (in events) ``item`` is from the nearest piece of ``text``; inf if it has none."""
    items = text.origins.items
    at = bisect.bisect_right(items, item)
    near = [item - items[at - 1]] if at else []
    if at < len(items):
        near.append(items[at] - item)
    return min(near, default=float("inf"))


class GapFeed:
    """Follows a run's findings for one text view: marks each new gap of ``text`` in ``view``
    (a LiveText) before the text after it is shown, so the block holding it is rendered with its
    mark once. Only the findings new since the last call are read (the list only grows)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._seen = 0
        self._items: set[int] = set()

    def feed(
        self,
        view: LiveText,
        findings: list[Finding],
        text: TextBuffer,
        rivals: tuple[TextBuffer, ...] = (),
        *,
        wins_ties: bool = True,
    ) -> bool:
        """Mark what is new; True if there were new findings."""
        if len(findings) == self._seen:
            return False
        if len(findings) < self._seen:
            self.reset()  # another run's findings: nobody called reset()
        new = findings[self._seen :]
        self._seen = len(findings)
        for gap in gap_offsets(text, new, self._items, rivals, wins_ties=wins_ties):
            view.mark_gap(gap)
        return True
