"""The Evaluate window: the suite's editors, the grid that runs it live, and its experiments.

What the window knows of the main window comes in as callables (the providers' URLs, the
current panel as a variant or as variables, the presets, the captures selected in History or
Traffic), and a cell's run goes out by ``openRun``: this floor never imports the shell.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from playground.evaluate.model import SuiteError
from playground.evaluate.suite import Suite, load_suite, parse_suite
from playground.ui.evaluate.cases_editor import CasesEditor, PanelVariables
from playground.ui.evaluate.experiments_view import ExperimentsView
from playground.ui.evaluate.grid_model import GridModel
from playground.ui.evaluate.grid_panel import GridPanel
from playground.ui.evaluate.grid_run import GridController
from playground.ui.evaluate.variants_editor import ChecksEditor, VariantsEditor

__all__ = ["EvaluateWindow"]

# The suite's settings the editors do not show, kept as the file had them.
_SETTINGS: Final = ("description", "concurrency", "pass_rate", "retries", "pace")


class EvaluateWindow(QWidget):
    """A suite edited and run as a grid; ``openRun(capture)`` asks to open a cell's run."""

    openRun = Signal(str)

    def __init__(
        self,
        *,
        base_urls: Callable[[], Mapping[str, str]],
        panel_variables: Callable[[], Mapping[str, str] | list[str]] | None = None,
        panel_variant: Callable[[str], dict[str, Any]] | None = None,
        presets: Callable[[], list[str]] | None = None,
        preset_variant: Callable[[str], dict[str, Any]] | None = None,
        traffic_captures: Callable[[], list[Path]] | None = None,
        root: Path | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Evaluate")
        self.resize(1280, 720)
        self.settings: dict[str, Any] = {}
        self.model = GridModel(self)
        self.controller = GridController(self.model, base_urls, root, self)
        self.name = QLineEdit("untitled")
        self.name.setToolTip("The suite's name (its experiments are named after it)")
        self.message = QLabel()
        self.message.setWordWrap(True)
        open_button, save_button = QPushButton("Open suite…"), QPushButton("Save suite…")
        open_button.clicked.connect(self._open_file)
        save_button.clicked.connect(self._save_file)
        self.grid = GridPanel(self.model)
        self.variants = VariantsEditor(panel_variant, presets, preset_variant)
        self.cases = CasesEditor(traffic_captures)
        self.checks = ChecksEditor()
        self.variables = PanelVariables(panel_variables)
        self.experiments = ExperimentsView(root)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.grid, "Grid")
        for widget, title in (
            (self.variants, "Variants"),
            (self.cases, "Cases"),
            (self.checks, "Checks"),
            (self.variables, "Variables"),
            (self.experiments, "Experiments"),
        ):
            self.tabs.addTab(widget, title)
        top = QHBoxLayout()
        top.addWidget(QLabel("Suite"))
        top.addWidget(self.name, 1)
        top.addWidget(open_button)
        top.addWidget(save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.tabs, 1)
        for part in (self.variants, self.cases):
            part.message.connect(self.say)
        self.cases.changed.connect(lambda: self.checks.set_cases(self.cases.ids()))
        self.variables.addCase.connect(self._add_case_with)
        self.grid.runRequested.connect(self.run)
        self.grid.stopRequested.connect(self.controller.stop)
        self.grid.openRun.connect(self.openRun)
        self.experiments.openRun.connect(self.openRun)
        self.model.framed.connect(self._show_progress)
        self.controller.started.connect(self._show_progress)
        self.controller.finished.connect(self._finished)
        self.experiments.refresh()

    # -- the suite -------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.message.setText(text)

    def load_source(self, source: Mapping[str, Any]) -> None:
        """Put a suite's JSON into the editors and the grid's shape."""
        source = copy.deepcopy(dict(source))
        self.name.setText(str(source.get("name") or "untitled"))
        self.settings = {k: source[k] for k in _SETTINGS if k in source}
        variants = [v for v in source.get("variants") or [] if isinstance(v, dict)]
        cases = [c for c in source.get("cases") or [] if isinstance(c, dict)]
        self.variants.load(variants)
        used: dict[str, None] = {}
        for variant in variants:
            from playground.evaluate.variables import names_in, names_in_value

            for text in (variant.get("system"), variant.get("prompt")):
                used.update(dict.fromkeys(names_in(text if isinstance(text, str) else None)))
            used.update(dict.fromkeys(names_in_value(variant.get("messages") or [])))
            used.update(dict.fromkeys(names_in_value(variant.get("tools") or [])))
        used.pop("expected", None)
        used.pop("output", None)
        self.cases.load(cases, list(used))
        self.checks.load([c for c in source.get("checks") or [] if isinstance(c, dict)], cases)
        repeat = source.get("repeat")
        self.grid.repeat.setValue(repeat if isinstance(repeat, int) else 1)
        self.model.set_grid(self.cases.ids(), self.variants.names(), keep=False)

    def load_file(self, path: Path) -> bool:
        """Read a suite file through the engine's reader; its mistake is said, not raised."""
        try:
            suite = load_suite(path)
        except SuiteError as exc:
            self.say(str(exc))
            return False
        self.load_source(suite.source)
        self.say(f"Opened {Path(path).name}.")
        return True

    def suite_json(self) -> dict[str, Any]:
        """The suite as the editors hold it (SuiteError for a cell that is not JSON)."""
        cases = self.cases.read()
        for case in cases:
            checks = self.checks.checks_of(case["id"])
            if checks:
                case["checks"] = checks
        return {
            "name": self.name.text().strip() or "untitled",
            **self.settings,
            "variants": self.variants.read(),
            "cases": cases,
            "checks": self.checks.checks_of(""),
            "repeat": self.grid.repeat.value(),
        }

    def build_suite(self) -> Suite | None:
        """The editors' suite checked by the engine's reader; None (said why) if it cannot run."""
        problems = self.checks.problems()
        if problems:
            self.say(problems[0])
            return None
        try:
            return parse_suite(self.suite_json())
        except SuiteError as exc:
            self.say(str(exc))
            return None

    def _add_case_with(self, values: dict[str, str]) -> None:
        from playground.evaluate.model import Case

        taken, n = set(self.cases.ids()), 1
        while f"case{n}" in taken:
            n += 1
        self.cases.add_cases([Case(f"case{n}", {k: v for k, v in values.items() if v})])
        self.say(f"Added case{n} with the panel's variables.")

    # -- running ---------------------------------------------------------------------------------
    def run(self, kind: str = "all", index: int = -1) -> bool:
        """Run the grid: ``all``, a ``row`` or ``column`` by index, or the ``failed`` cells."""
        suite = self.build_suite()
        if suite is None:
            return False
        repeat = self.grid.repeat.value()
        only = None
        if kind == "row":
            only = self.model.keys_where(row=index, repeat=repeat)
        elif kind == "column":
            only = self.model.keys_where(column=index, repeat=repeat)
        elif kind == "failed":
            only = self.model.keys_where(failed=True)
            if not only:
                self.say("No failed cell to run again.")
                return False
        try:
            started = self.controller.start(suite, repeat=repeat, only=only)
        except (OSError, ValueError) as exc:
            self.say(f"The grid cannot start: {exc}")
            return False
        if started is None:
            self.say("A run is still going: Stop it first.")
            return False
        self.tabs.setCurrentWidget(self.grid)
        self.say(f"Running {len(started.cells)} cells…")
        return True

    def stop(self) -> None:
        self.controller.stop()

    def _show_progress(self, *_args: object) -> None:
        self.grid.show_progress(self.controller.progress, self.controller.running)

    def _finished(self, folder: str) -> None:
        # Emitted from the run's last step: its task is not done yet, the run is.
        self.grid.show_progress(self.controller.progress, running=False)
        grid = self.controller.grid
        stopped = grid is not None and grid.runner.cancelled
        self.say(f"{'Stopped' if stopped else 'Done'}; saved the experiment {Path(folder).name}.")
        self.experiments.refresh()

    # -- files -----------------------------------------------------------------------------------
    def _open_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a suite", "", "Suites (*.json)")
        if path:
            self.load_file(Path(path))

    def _save_file(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the suite", "suite.eval.json", "Suites (*.json)"
        )
        if not path:
            return
        try:
            from playground.runs.atomic import write_json_atomically

            write_json_atomically(Path(path), self.suite_json(), prefix=".suite-")
        except (OSError, SuiteError) as exc:
            self.say(f"Cannot save: {exc}")
            return
        self.say(f"Saved {Path(path).name}.")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.controller.stop()
        super().closeEvent(event)
