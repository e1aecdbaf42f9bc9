"""Evaluate from the main window: one Evaluate window, fed the window's providers, the current
panel (as variables and as a variant), the presets and the runs selected in History or Traffic;
a cell's run opens back here, in its route's panel and the inspector."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from playground.ui.evaluate.window import EvaluateWindow
    from playground.ui.window.shell import MainWindow

__all__ = ["EvaluateLauncher"]


class EvaluateLauncher:
    """Opens (once) and raises the Evaluate window; Help ▸ Sample evaluation loads the sample."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.evaluate_window: EvaluateWindow | None = None

    def open(self) -> EvaluateWindow:
        if self.evaluate_window is not None:
            self.evaluate_window.show()
            self.evaluate_window.raise_()
            return self.evaluate_window
        from playground.ui.evaluate.window import EvaluateWindow

        found = EvaluateWindow(
            base_urls=self.base_urls,
            panel_variables=self.panel_variables,
            panel_variant=self.panel_variant,
            presets=self.presets,
            preset_variant=self.preset_variant,
            traffic_captures=self.selected_captures,
        )
        found.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        found.openRun.connect(self.open_run)
        self.evaluate_window = found
        try:  # a first suite: the current panel as variant A, one case for its variables
            first = [self.panel_variant("A")]
        except ValueError:  # the current panel is not chat, responses or messages
            first = []
        found.load_source({"name": "untitled", "variants": first, "cases": [{"id": "case1"}]})
        found.show()
        return found

    def open_sample(self) -> EvaluateWindow:
        from playground.assets import sample_evaluation

        found = self.open()
        found.load_file(sample_evaluation())
        return found

    async def aclose(self) -> None:
        """Stop a running grid and wait until its experiment is saved; close the window."""
        found = self.evaluate_window
        if found is None:
            return
        found.stop()
        await found.controller.wait()
        found.close()

    def open_run(self, capture: str) -> None:
        self.window.open_capture(capture)
        self.window.activateWindow()

    # -- what the Evaluate window asks of this one ----------------------------------------------
    def base_urls(self) -> dict[str, str]:
        bar = self.window.provider_bar
        urls = {"simulator": self.window.ensure_simulator()}
        if bar.provider().id != "simulator":
            urls[bar.provider().id] = bar.base_url()
        return urls

    def panel_variables(self) -> list[str]:
        from playground.ui.evaluate.sources import variables_of

        return variables_of(self.window.current_panel().editor.params())

    def panel_variant(self, name: str) -> dict[str, Any]:
        from playground.ui.evaluate.sources import variant_from_params

        panel = self.window.current_panel()
        params = panel.editor.params()
        params.model = params.model or self.window.provider_bar.model()
        return variant_from_params(
            name, panel.route, params, self.window.provider_bar.provider().id
        )

    def presets(self) -> list[str]:
        from playground.runs.presets import list_presets

        return [p.name for p in list_presets()]

    def preset_variant(self, name: str) -> dict[str, Any]:
        from playground.protocol.routes import route_of
        from playground.runs.presets import PresetError, find_preset
        from playground.ui.evaluate.sources import variant_from_params

        try:
            preset = find_preset(name)
        except PresetError as exc:
            raise ValueError(str(exc)) from None
        params = route_of(preset.route).params_from_body(preset.body)
        return variant_from_params(name, preset.route, params)

    def selected_captures(self) -> list[Path]:
        """The History run selected and the Traffic exchanges selected (those saved)."""
        window, out = self.window, []
        if window.docks_built:
            run_id = window.docks.history_view.selected_id()
            history = window.history
            if run_id and history is not None:
                out.append(history.capture_path(run_id))
            traffic = window.traffic
            if traffic is not None:
                out += [
                    Path(e.ex.capture) for e in traffic.panel.selected_entries() if e.ex.capture
                ]
        return out
