"""Two exchanges side by side: their text word by word, their event types, figures and usage.

The same diffs as Compare's columns (ui/compare/diff.py), fed from two proxied exchanges.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDialog, QTextBrowser, QVBoxLayout, QWidget

from playground.ui.compare.diff import (
    event_sequence,
    figures_html,
    run_length,
    sequence_diff_html,
    text_diff_html,
    usage_rows,
)

# A back-reference for the types only: the Traffic dock (above) hands this its entries.
if TYPE_CHECKING:
    from playground.ui.docks.traffic.feed import TrafficEntry

__all__ = ["ExchangeCompare", "compare_html"]


def _title(entry: TrafficEntry) -> str:
    ex = entry.ex
    return html.escape(f"#{ex.id} {ex.method} {ex.path} {ex.facts.model or ''} ({entry.status})")


def _figures(entry: TrafficEntry) -> str:
    from playground.protocol.timing import compute_timing

    session = entry.session
    if session is None or session.decoder is None:
        return ""
    run = session.run
    try:
        timing = compute_timing(session.decoder, run.t_headers, run.t_first_byte, t_end=run.t_end)
    except Exception:  # figures are a convenience; the diffs still show
        return ""
    return figures_html(timing)


def compare_html(a: TrafficEntry, b: TrafficEntry) -> str:
    """The comparison of ``a`` (A) and ``b`` (B) as one HTML page."""
    sa, sb = a.session, b.session
    state_a = sa.state if sa is not None else None
    state_b = sb.state if sb is not None else None
    text_a = state_a.text if state_a is not None else ""
    text_b = state_b.text if state_b is not None else ""
    seq_a = run_length(event_sequence(sa.decoder)) if sa is not None else []
    seq_b = run_length(event_sequence(sb.decoder)) if sb is not None else []
    usage = "".join(
        f"<tr><td>{html.escape(name)}</td>"
        + "".join(f"<td>{html.escape(v)}</td>" for v in values)
        + "</tr>"
        for name, values in usage_rows([state_a, state_b])
    )
    return (
        f"<p><b>A</b> {_title(a)}<br>{_figures(a)}</p>"
        f"<p><b>B</b> {_title(b)}<br>{_figures(b)}</p>"
        f"<h4>Text (A → B)</h4><p>{text_diff_html(text_a, text_b)}</p>"
        f"<h4>Usage</h4><table cellpadding='3'><tr><th></th><th>A</th><th>B</th></tr>{usage}"
        "</table>"
        f"<h4>Events</h4>{sequence_diff_html(seq_a, seq_b)}"
    )


class ExchangeCompare(QDialog):
    """A window with the comparison; ``html`` is what it shows."""

    def __init__(self, a: TrafficEntry, b: TrafficEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Compare exchanges #{a.ex.id} and #{b.ex.id}")
        self.resize(760, 620)
        self.view = QTextBrowser()
        self.html = compare_html(a, b)
        self.view.setHtml(self.html)
        layout = QVBoxLayout(self)
        layout.addWidget(self.view)
