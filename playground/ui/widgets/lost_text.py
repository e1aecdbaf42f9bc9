"""Where an answer lost text: the offsets of events that could not be read (bad JSON)."""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.protocol.state import Finding, TextBuffer

__all__ = ["LOST_CODES", "gap_offsets"]

# Findings whose event carried content that never reached the text: the data line was cut or
# malformed, so whatever it held is missing at that place (PROTOCOL.md §0: never silent).
LOST_CODES = frozenset({"invalid_json"})


def gap_offsets(
    text: TextBuffer, findings: list[Finding], seen: set[int] | None = None
) -> list[tuple[int, str]]:
    """``(text offset, note)`` for each unreadable event: the offset where the next readable
    piece of ``text`` begins after it (its end if none came). Sorted, one per event; ``seen``
    (updated) holds the events already placed by an earlier call.

    The answer view says so above the text, quoting the words before the first gap.
    """
    items, starts = text.origins.items, text.origins.starts
    gaps: list[tuple[int, str]] = []
    seen = set() if seen is None else seen
    for finding in findings:
        item = finding.item
        if finding.code not in LOST_CODES or item is None or item in seen:
            continue
        seen.add(item)
        at = bisect.bisect_right(items, item)  # items grow with the offsets (arrival order)
        offset = starts[at] if at < len(starts) else len(text)
        gaps.append((offset, f"Event #{item} could not be read: {finding.message}"))
    gaps.sort()
    return gaps
