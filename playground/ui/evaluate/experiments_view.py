"""Saved experiments listed, and any two compared: regressions first, then fixed, then deltas,
with both answers of the chosen (case, variant) side by side and their word diff.

The comparison is the engine's (``evaluate.experiments.compare``); this shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from playground.evaluate.experiments import Comparison, Experiment, compare, list_experiments
from playground.ui.compare.diff import text_diff_html

__all__ = ["ExperimentsView"]

_KEY = Qt.ItemDataRole.UserRole


def _signed(value: Any, unit: str = "") -> str:
    if value is None:
        return "–"
    return f"{value:+.3g}{unit}" if isinstance(value, float) else f"{value:+}{unit}"


def _label(experiment: Experiment) -> str:
    summary = experiment.data.get("summary") or {}
    cells = summary.get("cells", 0)
    passed = summary.get("passed", 0)
    stopped = " · stopped" if experiment.data.get("cancelled") else ""
    return f"{experiment.id}  ({passed}/{cells} passed{stopped})"


class ExperimentsView(QWidget):
    """The experiments folder's runs, newest first, and the comparison of two of them."""

    openRun = Signal(str)

    def __init__(self, root: Path | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root = root
        self.experiments: list[Experiment] = []
        self.comparison: Comparison | None = None
        self._pair: tuple[Experiment, Experiment] | None = None
        self.list = QListWidget()
        self.baseline = QComboBox()
        self.current = QComboBox()
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        self.compare_button = QPushButton("Compare")
        self.compare_button.clicked.connect(self.compare_chosen)
        self.result = QTreeWidget()
        self.result.setHeaderLabels(
            ["case", "variant", "pass rate", "TTFT Δ ms", "tokens Δ", "time Δ ms", "checks moved"]
        )
        self.result.currentItemChanged.connect(self._show_answers)
        self.summary = QLabel("Choose a baseline and a run to compare.")
        self.why = QLabel()  # the chosen cell's failing checks in the later run
        self.why.setWordWrap(True)
        self.answer_a, self.answer_b, self.diff = QTextBrowser(), QTextBrowser(), QTextBrowser()
        answers = QSplitter(Qt.Orientation.Horizontal)
        for title, browser in (
            ("baseline", self.answer_a),
            ("this run", self.answer_b),
            ("diff", self.diff),
        ):
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(QLabel(title))
            column.addWidget(browser)
            answers.addWidget(box)
        pick = QHBoxLayout()
        for widget in (
            QLabel("Baseline"),
            self.baseline,
            QLabel("against"),
            self.current,
            self.compare_button,
            refresh,
        ):
            pick.addWidget(widget)
        pick.setStretch(1, 1)
        pick.setStretch(3, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addLayout(pick)
        right_layout.addWidget(self.summary)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.result)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.why)
        lower_layout.addWidget(answers, 1)
        split.addWidget(lower)
        right_layout.addWidget(split, 1)
        outer = QSplitter(Qt.Orientation.Horizontal)
        outer.addWidget(self.list)
        outer.addWidget(right)
        outer.setStretchFactor(1, 3)
        outer.setSizes([360, 1080])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(outer)

    def refresh(self) -> None:
        self.experiments = list_experiments(self.root)
        self.list.clear()
        for experiment in self.experiments:
            item = QListWidgetItem(_label(experiment))
            item.setData(_KEY, experiment.id)
            self.list.addItem(item)
        for box, default in ((self.baseline, 1), (self.current, 0)):
            chosen = box.currentData()
            box.clear()
            for experiment in self.experiments:
                box.addItem(_label(experiment), experiment.id)
            found = box.findData(chosen)
            box.setCurrentIndex(found if found >= 0 else min(default, box.count() - 1))

    def _by_id(self, exp_id: str) -> Experiment | None:
        return next((e for e in self.experiments if e.id == exp_id), None)

    def compare_chosen(self) -> Comparison | None:
        return self.compare_ids(str(self.baseline.currentData()), str(self.current.currentData()))

    def compare_ids(self, baseline_id: str, current_id: str) -> Comparison | None:
        """Compare two experiments by id and show the result; None if either is unknown."""
        a, b = self._by_id(baseline_id), self._by_id(current_id)
        if a is None or b is None:
            self.summary.setText("Choose two saved experiments.")
            return None
        self._pair = (a, b)
        for box, chosen in ((self.baseline, a.id), (self.current, b.id)):
            box.setCurrentIndex(box.findData(chosen))
        self.comparison = result = compare(a.cells, b.cells)
        self.result.clear()
        sections = (
            ("Regressions", result.regressions),
            ("Fixed", result.fixed),
            ("Deltas", result.deltas),
        )
        deltas = {(d["case"], d["variant"]): d for d in result.deltas}
        first: QTreeWidgetItem | None = None
        for title, rows in sections:
            top = QTreeWidgetItem([f"{title} ({len(rows)})"])
            self.result.addTopLevelItem(top)
            top.setFirstColumnSpanned(True)  # only once in the tree
            for row in rows:
                delta = deltas.get((row["case"], row["variant"]), {})
                rate = (
                    f"{row['was']:.0%} → {row['now']:.0%}"
                    if "was" in row
                    else _signed(delta.get("pass_rate"))
                )
                moved = ", ".join(f"{k} {v:+.0%}" for k, v in (delta.get("checks") or {}).items())
                item = QTreeWidgetItem(
                    [
                        str(row["case"]),
                        str(row["variant"]),
                        rate,
                        _signed(delta.get("ttft_ms")),
                        _signed(delta.get("output_tokens")),
                        _signed(delta.get("duration_ms")),
                        moved,
                    ]
                )
                item.setData(0, _KEY, (row["case"], row["variant"]))
                top.addChild(item)
                first = first or item
            top.setExpanded(title != "Deltas" or not (result.regressions or result.fixed))
        self.summary.setText(
            f"{len(result.regressions)} regressed · {len(result.fixed)} fixed · "
            f"{len(result.deltas)} compared · {len(result.added)} new · "
            f"{len(result.removed)} gone"
        )
        if first is not None:
            self.result.setCurrentItem(first)
        return result

    def rows_of(self, section: int) -> list[tuple[str, str]]:
        """The (case, variant)s listed under a section: 0 regressions, 1 fixed, 2 deltas."""
        top = self.result.topLevelItem(section)
        if top is None:
            return []
        children = (top.child(i) for i in range(top.childCount()))
        return [child.data(0, _KEY) for child in children if child is not None]

    def _show_answers(self, item: QTreeWidgetItem | None, _old: object = None) -> None:
        key = item.data(0, _KEY) if item is not None else None
        if not key or self._pair is None:
            return
        a, b = (_first_output(e, key) for e in self._pair)
        self.why.setText(
            "this run: " + (_failed_checks(self._pair[1], key) or "every check passed")
        )
        self.answer_a.setPlainText(a)
        self.answer_b.setPlainText(b)
        self.diff.setHtml(text_diff_html(a, b))


def _first_output(experiment: Experiment, key: tuple[str, str]) -> str:
    """The first repeat's answer of a (case, variant), as the experiment file keeps it."""
    for cell in experiment.cells:
        if (cell.get("case"), cell.get("variant")) == tuple(key):
            output = cell.get("output")
            return output if isinstance(output, str) else ""
    return ""


def _failed_checks(experiment: Experiment, key: tuple[str, str]) -> str:
    """The first repeat's failing checks of a (case, variant), with what each measured."""
    for cell in experiment.cells:
        if (cell.get("case"), cell.get("variant")) == tuple(key):
            checks = cell.get("checks")
            failed = [
                f"{c.get('type')} failed ({c.get('value')!r})"
                for c in (checks if isinstance(checks, list) else [])
                if isinstance(c, dict) and not c.get("pass")
            ]
            if cell.get("status") == "cancelled":
                failed.insert(0, "cancelled")
            return "; ".join(failed)
    return "not in this run"
