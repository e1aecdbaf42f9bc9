"""What compare shows of two runs, computed: word diffs, event-type sequences, tool calls, usage.

Pure; the compare window only colours these (ui/compare/window.py). Text is compared word by
word (``difflib`` on words, spaces and punctuation), event sequences by their timeline type.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any, Literal

from playground.protocol.projection import parsed_tool_calls
from playground.protocol.state import StreamState
from playground.protocol.usage import normalize_usage

__all__ = [
    "event_sequence",
    "run_length",
    "sequence_diff",
    "tool_calls_of",
    "usage_rows",
    "word_diff",
]

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)

Op = Literal["equal", "delete", "insert", "replace"]
Entry = tuple[str, int]


def word_diff(a: str, b: str) -> tuple[list[tuple[Op, str, str]], float]:
    """``a`` -> ``b`` word by word: ``(op, text of a, text of b)`` runs, and the similarity."""
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    runs: list[tuple[Op, str, str]] = [
        (op, "".join(ta[i1:i2]), "".join(tb[j1:j2])) for op, i1, i2, j1, j2 in matcher.get_opcodes()
    ]
    return runs, (matcher.ratio() if (ta or tb) else 1.0)


def run_length(seq: Sequence[str]) -> list[Entry]:
    """``[a, a, b, a]`` -> ``[(a, 2), (b, 1), (a, 1)]``: an event sequence people can read."""
    out: list[Entry] = []
    for name in seq:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out


def sequence_diff(
    a: list[Entry], b: list[Entry]
) -> list[tuple[bool, bool, Entry | None, Entry | None]]:
    """Rows of two run-length sequences side by side, aligned on their names:
    ``(changed, counts_differ, entry of a, entry of b)``."""
    names_a, names_b = [n for n, _ in a], [n for n, _ in b]
    rows: list[tuple[bool, bool, Entry | None, Entry | None]] = []
    matcher = difflib.SequenceMatcher(None, names_a, names_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        left = list(range(i1, i2))
        right = list(range(j1, j2))
        for k in range(max(len(left), len(right))):
            ea = a[left[k]] if k < len(left) else None
            eb = b[right[k]] if k < len(right) else None
            if op == "equal":
                differ = ea is not None and eb is not None and ea[1] != eb[1]
                rows.append((False, differ, ea, eb))
            else:
                rows.append((True, False, ea, eb))
    return rows


def event_sequence(decoder: Any) -> list[str]:
    """The timeline's "type" column for every item of a decoder."""
    from playground.protocol.summary import event_type

    out: list[str] = []
    for i, item in enumerate(getattr(decoder, "items", [])):
        try:
            payload = decoder.payload(i)
        except Exception:
            payload = None
        out.append(event_type(item, payload))
    return out


def tool_calls_of(state: StreamState | None) -> list[dict[str, Any]]:
    """Tool calls as ``{name, arguments}`` with arguments parsed when they are JSON (for diffs)."""
    return parsed_tool_calls(state)


def usage_rows(states: Sequence[StreamState | None]) -> list[tuple[str, list[str]]]:
    """Rows of the usage table: each reported figure, then what was counted, per column."""
    reported = [normalize_usage(s.usage if s is not None else None) for s in states]
    keys = [
        k
        for k in ("input", "output", "reasoning", "cached", "total")
        if any(k in r for r in reported)
    ]
    rows = [(f"{k} tokens (reported)", [str(r.get(k, "—")) for r in reported]) for k in keys]

    def counted(state: StreamState | None, what: str) -> str:
        if state is None:
            return "—"
        choice = state.choices.get(0)
        if what == "text deltas":
            return str(len(choice.text.origins)) if choice else "0"
        if what == "text chars":
            return str(len(state.text))
        if what == "reasoning deltas":
            return str(len(choice.reasoning.origins)) if choice else "0"
        if what == "events":
            return str(state.events)
        return "—"

    for what in ("text deltas", "text chars", "reasoning deltas", "events"):
        rows.append((f"{what} (counted)", [counted(s, what) for s in states]))
    return rows
