"""The one documented token count: words, numbers and single symbols, each one token.

A text is cut by ``\\s*(?:[A-Za-z]+|[0-9]+|[^\\sA-Za-z0-9])``: a run of ASCII letters, a run of
digits, or any one other character (punctuation, an accented or CJK letter), each with the
whitespace before it. A segment of the canonical prefix (canonical.py) costs 4 tokens more for
its framing. The simulator counts its prompts the same way (sim/cache_prefix.py), so an estimate
of a text-only request equals the simulator's count; against a real tokenizer it is an estimate.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from playground.protocol.accounting.canonical import Canonical, Segment

__all__ = [
    "SEGMENT_OVERHEAD",
    "ContextEstimate",
    "count_text",
    "estimate_context",
    "segment_tokens",
]

SEGMENT_OVERHEAD = 4
_TOKEN = re.compile(r"\s*(?:[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9])")


_COUNTED_MAX = 4096
# Kept per text: the gauge, the cache warning and each turn's account count every turn of the
# thread again whenever the body changes, and a 50-answer thread's 100,000 tokens took ~35 ms
# of one frame to cut again (the session benchmark); a text is hashed in a fraction. Keyed by
# the text's hash and length, not the text: each body is parsed afresh, so a cache holding its
# strings kept another copy of the whole conversation (0.9 MB in that session). Two texts
# sharing a 64-bit hash and a length would share an estimate: a risk far below the estimate's
# own error against a real tokenizer.
_counted: dict[tuple[int, int], int] = {}
_counted_lock = threading.Lock()


def count_text(text: str) -> int:
    key = (hash(text), len(text))
    counted = _counted.get(key)
    if counted is not None:
        return counted
    counted = len(_TOKEN.findall(text))
    with _counted_lock:  # worker threads count too (the ledger, the gauge)
        if len(_counted) >= _COUNTED_MAX:
            del _counted[next(iter(_counted))]  # the oldest first
        _counted[key] = counted
    return counted


def segment_tokens(segment: Segment) -> int:
    return SEGMENT_OVERHEAD + sum(count_text(p.text) for p in segment.pieces)


def prefix_tokens(canonical: Canonical, segment: int, piece: int | None = None) -> int:
    """Tokens before segment ``segment`` (or through its piece ``piece`` when given)."""
    total = sum(segment_tokens(s) for s in canonical.segments[:segment])
    if piece is not None and segment < len(canonical.segments):
        pieces = canonical.segments[segment].pieces[: piece + 1]
        total += SEGMENT_OVERHEAD + sum(count_text(p.text) for p in pieces)
    return total


@dataclass(frozen=True, slots=True)
class ContextEstimate:
    """A request's input tokens split by where they are, against the model's context window."""

    system: int
    tools: int
    history: int
    attachments: int
    new_message: int
    context_window: int | None  # None: the gateway did not say
    source: str  # "estimate" (this module's count) or "counted" (the gateway's endpoint)
    counted: int | None = None  # the gateway's own count, when it has a counting endpoint

    @property
    def total(self) -> int:
        if self.counted is not None:
            return self.counted
        return self.system + self.tools + self.history + self.attachments + self.new_message

    @property
    def fraction(self) -> float | None:
        return self.total / self.context_window if self.context_window else None

    @property
    def level(self) -> str:
        """ "ok", "amber" (80 % or more), "red" (95 % or more) or "unknown" (no window)."""
        fraction = self.fraction
        if fraction is None:
            return "unknown"
        return "red" if fraction >= 0.95 else "amber" if fraction >= 0.8 else "ok"

    def to_json(self) -> dict[str, Any]:
        return {
            "system": self.system,
            "tools": self.tools,
            "history": self.history,
            "attachments": self.attachments,
            "new_message": self.new_message,
            "total": self.total,
            "context_window": self.context_window,
            "fraction": self.fraction,
            "level": self.level,
            "source": self.source,
        }


def estimate_context(
    canonical: Canonical, context_window: int | None = None, counted: int | None = None
) -> ContextEstimate:
    """The offline estimate of ``canonical``; ``counted`` (a counting endpoint's answer) wins
    for the total when given, and the split stays the estimate's."""
    split = {"system": 0, "tools": 0, "history": 0, "attachments": 0, "new_message": 0}
    last = len(canonical.segments) - 1
    for i, segment in enumerate(canonical.segments):
        if segment.part == "tools":
            bucket = "tools"
        elif segment.part == "system":
            bucket = "system"
        else:
            bucket = "new_message" if i == last else "history"
        split[bucket] += SEGMENT_OVERHEAD
        for piece in segment.pieces:
            split["attachments" if piece.kind == "other" else bucket] += count_text(piece.text)
    return ContextEstimate(
        **split,
        context_window=context_window,
        source="counted" if counted is not None else "estimate",
        counted=counted,
    )
