"""Where a position in rendered Markdown is in its source text (the linked views' click map).

Rendered text drops the source's markup, so a rendered position is found in the source by the
text around it, searched near where the block's own source offsets say it should be.
"""

from __future__ import annotations

__all__ = ["locate", "nearest"]

# Block, line, object and frame (table cell) marks in a document's raw text (selectedText).
_BREAKS = "\u2029\u2028\ufffc\ufdd0\ufdd1\n"


def locate(rendered: str, here: int, source: str, approx: int) -> int:
    """Where rendered position ``here`` is in ``source``: the text around it on its line (or in
    its table cell) found near ``approx``, else the word under it; -1 if neither is there."""
    lo, hi = max(0, here - 12), min(len(rendered), here + 12)
    for k in range(here - 1, lo - 1, -1):
        if rendered[k] in _BREAKS:
            lo = k + 1
            break
    for k in range(here, hi):
        if rendered[k] in _BREAKS:
            hi = k
            break
    raw = rendered[lo:hi]
    snippet = raw.strip()
    if snippet:
        found = nearest(source, snippet, approx)
        if found >= 0:
            return found + max(0, here - lo - (len(raw) - len(raw.lstrip())))
    start = here
    while start > 0 and rendered[start - 1].isalnum():
        start -= 1
    end = here
    while end < len(rendered) and rendered[end].isalnum():
        end += 1
    if end > start:
        found = nearest(source, rendered[start:end], approx)
        if found >= 0:
            return found + here - start
    return -1


def nearest(hay: str, needle: str, approx: int) -> int:
    """The occurrence of ``needle`` in ``hay`` closest to ``approx``; -1 if none."""
    after = hay.find(needle, max(0, approx - len(needle)))
    before = hay.rfind(needle, 0, max(0, approx) + len(needle))
    if after < 0:
        return before
    if before < 0:
        return after
    return after if abs(after - approx) <= abs(approx - before) else before
