"""Compare's diffs of two runs, as HTML: the text word by word, tool calls, usage, event types.

The diffs themselves are computed in the protocol layer (``playground.protocol.compare``); this
module only colours them for the compare window.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from playground.protocol.compare import (
    event_sequence,
    run_length,
    sequence_diff,
    tool_calls_of,
    usage_rows,
    word_diff,
)
from playground.protocol.figures import BY_KEY, figure_values, first_token
from playground.protocol.timing_format import format_seconds
from playground.protocol.timing_types import Timing

if TYPE_CHECKING:
    from playground.protocol.state import StreamState

__all__ = [
    "event_sequence",
    "figures_html",
    "run_length",
    "sequence_diff_html",
    "text_diff_html",
    "tool_calls_of",
    "usage_html",
    "usage_rows",
]


def _diff_colors() -> tuple[str, str]:
    try:
        from playground.ui.kit.theme import is_dark

        dark = is_dark()
    except Exception:
        dark = False
    return ("#5c1f24", "#1f4d2c") if dark else ("#ffd7d5", "#ccf2d3")


def text_diff_html(a: str, b: str) -> str:
    """``a`` -> ``b`` word by word: removed words struck on red, added words on green."""
    removed_bg, added_bg = _diff_colors()
    runs, ratio = word_diff(a, b)
    out: list[str] = []
    for op, old, new in runs:
        if op == "equal":
            out.append(html.escape(old))
            continue
        if op in ("delete", "replace"):
            out.append(
                f'<span style="background-color:{removed_bg}; text-decoration:line-through">'
                f"{html.escape(old)}</span>"
            )
        if op in ("insert", "replace"):
            out.append(f'<span style="background-color:{added_bg}">{html.escape(new)}</span>')
    body = "".join(out).replace("\n", "<br>")
    return (
        f"<p><b>{ratio * 100:.0f}% similar</b> (word level; "
        f'<span style="background-color:{removed_bg}">only in A</span>, '
        f'<span style="background-color:{added_bg}">only in B</span>)</p>'
        f'<p style="white-space:pre-wrap">{body}</p>'
    )


def sequence_diff_html(a: list[tuple[str, int]], b: list[tuple[str, int]]) -> str:
    removed_bg, added_bg = _diff_colors()
    rows: list[str] = []

    def cell(entry: tuple[str, int] | None, bg: str | None) -> str:
        if entry is None:
            return "<td></td>"
        name, count = entry
        style = f' style="background-color:{bg}"' if bg else ""
        times = f" ×{count}" if count > 1 else ""
        return f"<td{style}><code>{html.escape(name)}</code>{times}</td>"

    for changed, counts_differ, ea, eb in sequence_diff(a, b):
        if changed:
            rows.append(f"<tr>{cell(ea, removed_bg)}{cell(eb, added_bg)}</tr>")
        else:
            bg = "#8884" if counts_differ else None
            rows.append(f"<tr>{cell(ea, bg)}{cell(eb, bg)}</tr>")
    return (
        '<table cellspacing="0" cellpadding="3" width="100%">'
        "<tr><th align=left>A</th><th align=left>B</th></tr>" + "".join(rows) + "</table>"
    )


def _figure(timing: Timing, key: str) -> float | None:
    return timing.duration if key == "total" else figure_values(timing)[key]


def figures_html(t: Timing) -> str:
    first = first_token(t)  # the one definition every view uses (protocol/figures.py)
    rate = t.output_tokens_per_second  # as the status line and Timing show it
    parts = [
        f"first byte <b>{format_seconds(t.t_first_byte)}</b>",
        f"first token <b>{format_seconds(first)}</b>",
        f"<b>{rate:.1f}</b> tok/s" if rate is not None else "tok/s —",
        f"total <b>{format_seconds(t.duration)}</b>",
        f"{len(t.times)} events",
    ]
    if t.dead_air:
        parts.append(
            f'<span style="color:#dc2626">dead air {format_seconds(t.dead_air_total)}</span>'
        )
    return " · ".join(parts)


def usage_html(
    titles: list[str], states: list[StreamState | None], timings: list[Timing | None]
) -> str:
    """The columns' usage and timing side by side, one column per run."""
    head = "".join(f"<th align=right>{html.escape(title)}</th>" for title in titles)
    rows = []
    for name, values in usage_rows(states):
        cells = "".join(f"<td align=right>{html.escape(v)}</td>" for v in values)
        rows.append(f"<tr><td>{html.escape(name)}</td>{cells}</tr>")
    for key in ("first_byte", "first_token", "first_answer", "total"):
        label = BY_KEY[key].name if key in BY_KEY else key
        cells = "".join(
            "<td align=right>"
            + (format_seconds(_figure(timing, key)) if timing is not None else "—")
            + "</td>"
            for timing in timings
        )
        rows.append(f"<tr><td>{label}</td>{cells}</tr>")
    return (
        '<table cellspacing="0" cellpadding="4">'
        f"<tr><th></th>{head}</tr>" + "".join(rows) + "</table>"
    )
