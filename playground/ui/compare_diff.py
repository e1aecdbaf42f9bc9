"""Compare's diffs of two runs, as HTML: the text word by word, tool calls, usage, event types."""

from __future__ import annotations

import difflib
import html
import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from playground.protocol.timing import Timing, normalize_usage
from playground.ui.timing_chart import format_seconds

if TYPE_CHECKING:
    from playground.protocol.state import StreamState

__all__ = [
    "event_sequence",
    "figures_html",
    "run_length",
    "sequence_diff_html",
    "text_diff_html",
    "tool_calls_of",
    "usage_rows",
]

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def _diff_colors() -> tuple[str, str]:
    try:
        from playground.ui.theme import is_dark

        dark = is_dark()
    except Exception:
        dark = False
    return ("#5c1f24", "#1f4d2c") if dark else ("#ffd7d5", "#ccf2d3")


def text_diff_html(a: str, b: str) -> str:
    """``a`` -> ``b`` word by word: removed words struck on red, added words on green."""
    removed_bg, added_bg = _diff_colors()
    ta, tb = _TOKEN.findall(a), _TOKEN.findall(b)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(html.escape("".join(ta[i1:i2])))
            continue
        if op in ("delete", "replace"):
            out.append(
                f'<span style="background-color:{removed_bg}; text-decoration:line-through">'
                f"{html.escape(''.join(ta[i1:i2]))}</span>"
            )
        if op in ("insert", "replace"):
            out.append(
                f'<span style="background-color:{added_bg}">'
                f"{html.escape(''.join(tb[j1:j2]))}</span>"
            )
    ratio = matcher.ratio() if (ta or tb) else 1.0
    body = "".join(out).replace("\n", "<br>")
    return (
        f"<p><b>{ratio * 100:.0f}% similar</b> (word level; "
        f'<span style="background-color:{removed_bg}">only in A</span>, '
        f'<span style="background-color:{added_bg}">only in B</span>)</p>'
        f'<p style="white-space:pre-wrap">{body}</p>'
    )


def run_length(seq: Sequence[str]) -> list[tuple[str, int]]:
    """``[a, a, b, a]`` -> ``[(a, 2), (b, 1), (a, 1)]``: an event sequence people can read."""
    out: list[tuple[str, int]] = []
    for name in seq:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out


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
    out: list[dict[str, Any]] = []
    for call in state.tool_calls if state is not None else []:
        text = call.arguments.value
        try:
            args: Any = json.loads(text) if text.strip() else {}
        except ValueError:
            args = text
        out.append({"name": call.name, "arguments": args})
    return out


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


def sequence_diff_html(a: list[tuple[str, int]], b: list[tuple[str, int]]) -> str:
    removed_bg, added_bg = _diff_colors()
    names_a, names_b = [n for n, _ in a], [n for n, _ in b]
    rows: list[str] = []

    def cell(entry: tuple[str, int] | None, bg: str | None) -> str:
        if entry is None:
            return "<td></td>"
        name, count = entry
        style = f' style="background-color:{bg}"' if bg else ""
        times = f" ×{count}" if count > 1 else ""
        return f"<td{style}><code>{html.escape(name)}</code>{times}</td>"

    matcher = difflib.SequenceMatcher(None, names_a, names_b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        left = list(range(i1, i2))
        right = list(range(j1, j2))
        for k in range(max(len(left), len(right))):
            ea = a[left[k]] if k < len(left) else None
            eb = b[right[k]] if k < len(right) else None
            if op == "equal":
                counts_differ = ea is not None and eb is not None and ea[1] != eb[1]
                bg = "#8884" if counts_differ else None
                rows.append(f"<tr>{cell(ea, bg)}{cell(eb, bg)}</tr>")
            else:
                rows.append(f"<tr>{cell(ea, removed_bg)}{cell(eb, added_bg)}</tr>")
    return (
        '<table cellspacing="0" cellpadding="3" width="100%">'
        "<tr><th align=left>A</th><th align=left>B</th></tr>" + "".join(rows) + "</table>"
    )


# ---- one column ------------------------------------------------------------------------------


def figures_html(t: Timing) -> str:
    first = min(
        (x for x in (t.t_first_text, t.t_first_reasoning, t.t_first_tool_args) if x is not None),
        default=None,
    )
    text = t.channels.get("text")
    rate = text.tokens_per_second if text is not None else None
    parts = [
        f"first byte <b>{format_seconds(t.t_first_byte)}</b>",
        f"first token <b>{format_seconds(first)}</b>",
        f"<b>{rate:.0f}</b> tok/s" if rate is not None else "tok/s —",
        f"total <b>{format_seconds(t.duration)}</b>",
        f"{len(t.times)} events",
    ]
    if t.dead_air:
        parts.append(
            f'<span style="color:#dc2626">dead air {format_seconds(t.dead_air_total)}</span>'
        )
    return " · ".join(parts)
