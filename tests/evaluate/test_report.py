"""Pass rates, the suite's verdict with a threshold, and the summary table."""

from __future__ import annotations

from playground.evaluate.report import pass_rates, suite_passed, summary_table
from playground.evaluate.runner import Cell


def _cells(passes: list[bool], case: str = "a", variant: str = "A") -> list[Cell]:
    return [
        Cell(case, variant, n, status="complete", passed=ok, figures={"ttft_ms": 10.0 * n})
        for n, ok in enumerate(passes, start=1)
    ]


def test_a_pass_rate_threshold_lets_a_flaky_cell_pass() -> None:
    cells = _cells([True, False, True]) + _cells([True, True, True], case="b")
    assert pass_rates(cells) == {("a", "A"): 2 / 3, ("b", "A"): 1.0}
    assert not suite_passed(cells, 1.0)
    assert suite_passed(cells, 2 / 3)
    assert not suite_passed(cells, 0.7)


def test_a_stopped_grid_never_passes() -> None:
    cells = [*_cells([True]), Cell("b", "A", 1, status="cancelled", passed=False)]
    assert not suite_passed(cells, 0.0)


def test_the_summary_table_shows_passes_over_repeats() -> None:
    table = summary_table(_cells([True, False, True]) + _cells([True], variant="B"))
    assert table.splitlines() == ["case  A              B", "a     FAIL 2/3 20ms  PASS 1/1 10ms"]
