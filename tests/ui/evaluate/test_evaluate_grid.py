"""The Evaluate window's grid against the real simulator: every cell ends showing the engine's
verdict, repeats show a pass rate, Stop leaves no half-scored cell, and two experiments compared
list exactly the cells that regressed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from playground.evaluate.experiments import list_experiments
from playground.ui.evaluate.grid_delegate import status_line
from playground.ui.evaluate.grid_model import CELL_ROLE, CellView

VARIANTS = [
    {"name": "chat", "route": "chat", "model": "sim", "system": "You explain {{topic}}.",
     "prompt": "Tell me about {{topic}}"},
    {"name": "messages", "route": "messages", "model": "sim", "system": "You explain {{topic}}.",
     "prompt": "Tell me about {{topic}}", "params": {"max_tokens": 4096}},
]  # fmt: skip
CASES = [
    {"id": "rivers", "vars": {"topic": "rivers"}},
    {"id": "owls", "vars": {"topic": "owls"}, "fault": "midstream-error"},
    {"id": "tides", "vars": {"topic": "tides"}, "checks": [{"type": "equals", "value": "nope"}]},
    {"id": "maps", "vars": {"topic": "maps"}, "checks": [{"type": "json_valid"}]},
    {"id": "glaciers", "vars": {"topic": "glaciers"},
     "checks": [{"type": "regex", "pattern": "^## ", "normalize_whitespace": True}]},
]  # fmt: skip
CHECKS = [
    {"type": "contains", "value": "{{topic}}", "ignore_case": True},
    {"type": "ttft_ms", "max": 60000},
    {"type": "no_findings", "severity": "warning"},
    {"type": "usage_reported"},
    {"type": "finish_reason", "value": ["stop", "end_turn"]},
]


def suite(**fields: Any) -> dict[str, Any]:
    return {"name": "grid", "pace": "fast", "variants": VARIANTS, "cases": CASES,
            "checks": CHECKS} | fields  # fmt: skip


def views(win: Any) -> dict[tuple[str, str], CellView]:
    model = win.model
    return {
        (model.cases[r], model.variants[c]): model.index(r, c).data(CELL_ROLE)
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    }


def saved_cells(win: Any) -> list[dict[str, Any]]:
    """The engine's own record of the last run: its experiment file."""
    grid = win.controller.grid
    found = [
        e for e in list_experiments(grid.experiment.folder.parent) if e.id == grid.experiment.id
    ]
    return found[0].cells


def test_every_cell_ends_showing_the_engines_verdict(evaluate: Any, run_to_end: Any) -> None:
    evaluate.load_source(suite())
    run_to_end(evaluate)
    shown = views(evaluate)
    cells = saved_cells(evaluate)
    assert len(shown) == 10 and len(cells) == 10
    for cell in cells:
        view = shown[(cell["case"], cell["variant"])]
        assert view.finished == 1 and view.passed == (1 if cell["pass"] else 0)
        assert [(k, ok, value) for k, ok, value, _ in view.checks] == [
            (c["type"], c["pass"], c["value"]) for c in cell["checks"]
        ]
        assert view.ttft_ms == cell["ttft_ms"] and view.output_tokens == cell["output_tokens"]
        assert view.capture == cell["capture"] and view.capture is not None
        assert Path(view.capture).is_file()
    statuses = {key: view.status for key, view in shown.items()}
    for variant in ("chat", "messages"):
        assert statuses[("rivers", variant)] == "pass"
        assert statuses[("owls", variant)] == "error"  # the stream broke: no verdict on text
        assert statuses[("tides", variant)] == "fail"  # ran, and equals failed
        assert statuses[("maps", variant)] == "fail"
        assert statuses[("glaciers", variant)] == "pass"
    tides = evaluate.model.index(2, 0)
    assert "FAIL  equals" in tides.data(Qt.ItemDataRole.ToolTipRole)
    assert status_line(tides.data(CELL_ROLE)).startswith("fail")
    progress = evaluate.grid.status.text()
    assert progress.startswith("10 done · 6 failed · 0 remaining"), progress
    assert not evaluate.grid.stop.isEnabled() and evaluate.grid.run_all.isEnabled()
    evaluate.grid.table.viewport().grab()  # the delegate paints every state without raising


def test_repeat_three_shows_the_pass_rate(evaluate: Any, run_to_end: Any) -> None:
    evaluate.load_source(suite(cases=CASES[:3], repeat=3))
    assert evaluate.grid.repeat.value() == 3
    run_to_end(evaluate)
    shown = views(evaluate)
    rivers, owls, tides = (shown[(c, "chat")] for c in ("rivers", "owls", "tides"))
    assert (rivers.repeats, rivers.finished, rivers.passed) == (3, 3, 3)
    assert rivers.pass_rate == 1.0 and status_line(rivers).startswith("pass 3/3")
    assert owls.pass_rate == 0.0 and status_line(owls).startswith("error 0/3")
    assert tides.pass_rate == 0.0
    assert rivers.ttft_spread is not None  # three TTFTs: their range is shown
    low, high = rivers.ttft_spread
    assert rivers.ttft_ms is not None
    assert low <= rivers.ttft_ms <= high
    assert len(saved_cells(evaluate)) == 3 * 2 * 3


def test_run_a_row_then_the_failed_cells_again(evaluate: Any, run_to_end: Any) -> None:
    evaluate.load_source(suite(cases=CASES[:3]))
    run_to_end(evaluate, "row", 0)
    assert {(c["case"], c["variant"]) for c in saved_cells(evaluate)} == {
        ("rivers", "chat"), ("rivers", "messages")}  # fmt: skip
    assert views(evaluate)[("owls", "chat")].status == "pending"
    run_to_end(evaluate, "column", 1)
    assert {c["case"] for c in saved_cells(evaluate)} == {"rivers", "owls", "tides"}
    assert views(evaluate)[("rivers", "chat")].status == "pass"  # the row's cell is kept
    run_to_end(evaluate, "failed")
    assert {(c["case"], c["variant"]) for c in saved_cells(evaluate)} == {
        ("owls", "messages"), ("tides", "messages")}  # fmt: skip
    evaluate.load_source(suite(cases=CASES[:3]))  # a suite opened again starts all pending
    assert {v.status for v in views(evaluate).values()} == {"pending"}


def test_stop_mid_run_leaves_no_half_scored_cell(evaluate: Any, qloop: Any) -> None:
    many = [{"id": f"c{i}", "vars": {"topic": f"topic {i}"}} for i in range(8)]
    quick = {"id": "quick", "vars": {"topic": "rivers"}, "fault": "http-400"}
    evaluate.load_source(suite(cases=[quick, *many], pace="realtime", concurrency=3))
    assert qloop.do(evaluate.run, "all", -1)

    def progress() -> Any:
        return evaluate.controller.progress

    qloop.wait_until(lambda: progress().done >= 1 and progress().running >= 1, 30)
    qloop.wait_until(lambda: any(v.text for v in views(evaluate).values()
                                 if v.status == "running"), 30)  # fmt: skip
    qloop.do(evaluate.grid.stop.click)
    qloop.run(evaluate.controller.wait(), 30)
    qloop.sleep(0.05)
    cells = evaluate.controller.grid.cells
    assert all(c.finished for c in cells)
    cancelled = [c for c in cells if c.status == "cancelled"]
    assert cancelled and len(cancelled) < len(cells)
    for cell in cells:
        if cell.status == "cancelled":
            assert cell.checks == [] and cell.passed is False
        else:
            assert cell.checks and cell.passed is not None
    assert not evaluate.controller.grid.runner.live
    shown = views(evaluate)
    for cell in cancelled:
        view = shown[(cell.case, cell.variant)]
        assert view.status == "cancelled" and view.checks == []
        assert status_line(view) == "cancelled"
        assert "stopped before it was scored" in evaluate.model.data(
            evaluate.model.index(evaluate.model.cases.index(cell.case),
                                 evaluate.model.variants.index(cell.variant)),
            Qt.ItemDataRole.ToolTipRole)  # fmt: skip
    assert "Stopped" in evaluate.message.text()
    saved = saved_cells(evaluate)
    assert sum(1 for c in saved if c["status"] == "cancelled") == len(cancelled)


def test_two_experiments_compared_list_exactly_the_regressed_cells(
    evaluate: Any, run_to_end: Any
) -> None:
    evaluate.load_source(suite(cases=[CASES[0], CASES[4]]))
    run_to_end(evaluate)
    first = evaluate.controller.grid.experiment.id
    # The second run adds a check glaciers cannot pass: its two cells regress, rivers does not.
    evaluate.checks.scope.setCurrentIndex(evaluate.checks.scope.findData("glaciers"))
    evaluate.checks.add_check({"type": "equals", "value": "nope"})
    run_to_end(evaluate)
    second = evaluate.controller.grid.experiment.id
    view = evaluate.experiments
    assert {first, second} <= {e.id for e in view.experiments}
    result = view.compare_ids(first, second)
    assert result is not None
    assert sorted(view.rows_of(0)) == [("glaciers", "chat"), ("glaciers", "messages")]
    assert view.rows_of(1) == []  # nothing fixed
    assert len(view.rows_of(2)) == 4  # every (case, variant) has its deltas
    assert view.result.currentItem().data(0, Qt.ItemDataRole.UserRole)[0] == "glaciers"
    assert (
        view.answer_a.toPlainText() and view.answer_a.toPlainText() == view.answer_b.toPlainText()
    )
    assert "100% similar" in view.diff.toPlainText()
    assert view.why.text() == "this run: equals failed (False)"  # why it regressed
    assert "2 regressed · 0 fixed" in view.summary.text()


def test_a_429_pause_is_shown_on_the_progress_line(evaluate: Any, qloop: Any) -> None:
    limited = {"id": "limited", "vars": {"topic": "rivers"}, "fault": "http-429"}
    evaluate.load_source(suite(variants=VARIANTS[:1], cases=[limited, CASES[0]], retries=1))
    assert qloop.do(evaluate.run, "all", -1)
    qloop.wait_until(lambda: "simulator paused" in evaluate.grid.status.text(), 30)
    assert "(rate limited)" in evaluate.grid.status.text()
    qloop.run(evaluate.controller.wait(), 60)
    qloop.sleep(0.05)
    shown = views(evaluate)
    assert shown[("limited", "chat")].status == "error"
    assert "429" in evaluate.model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "paused" not in evaluate.grid.status.text()  # the pause is over with the run


def test_a_cell_part_way_through_its_repeats_says_how_many_ran() -> None:
    view = CellView(status="running", repeats=3, finished=1, passed=1, ttft_ms=43.0)
    assert status_line(view) == "running 1 of 3 · 1/1 passed · 43 ms"
    done = CellView(status="pass", repeats=3, finished=3, passed=3)
    assert status_line(done) == "pass 3/3"
