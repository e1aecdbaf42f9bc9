"""The History dock shows a run's time to first token as every other view does: the figure of
protocol/figures.py, under its one name and tooltip, the status line's number."""

from __future__ import annotations

from typing import Any

from panel_helpers import say
from PySide6.QtCore import Qt

from playground.protocol.figures import BY_KEY
from playground.protocol.timing_format import format_seconds


def test_a_runs_row_shows_the_status_lines_time_to_first_token(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("fast")
    assert say(qloop, panel, "Tell me about server-sent events") == "complete"
    qloop.sleep(0.1)
    ttft = panel.session.run.t_first_token
    assert ttft is not None and ttft > 0
    view = window.docks.history_view
    view.set_route("chat")
    view.refresh()
    tree = view.tree
    column = [tree.headerItem().text(c) for c in range(tree.columnCount())].index(
        BY_KEY["first_token"].short
    )
    assert tree.headerItem().toolTip(column) == BY_KEY["first_token"].tip
    newest = tree.topLevelItem(0)
    run_id = newest.data(0, Qt.ItemDataRole.UserRole)
    (summary,) = [r for r in window.history.list_runs("chat") if r.id == run_id]
    assert summary.ttft == round(ttft, 4)
    shown = newest.text(column)
    assert shown == format_seconds(round(ttft, 4))
    assert panel.status_line.ttft.text() == f"TTFT {format_seconds(ttft)}"
