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

    def panel_variables(self) -> dict[str, str]:
        """The variables the current panel's request uses (its thread's too), each with the
        value its Variables group holds ("" for none)."""
        from playground.ui.evaluate.sources import variables_of

        editor = self.window.current_panel().editor
        names = variables_of(self._params_with_thread())
        held = editor.variables.values() if editor.variables is not None else {}
        return {name: held.get(name, "") for name in names}

    def _params_with_thread(self) -> Any:
        """The current panel's request fields, its thread's turns as ``messages`` (the form's
        own fields leave the thread out), the message box as the prompt."""
        panel = self.window.current_panel()
        params = panel.editor.params()
        thread = panel.conversation
        if thread is not None and thread.turns and not params.messages:
            from playground.protocol.conversation.bodies import conversation_keys
            from playground.protocol.conversation.model import Conversation
            from playground.protocol.routes import route_of

            keys = conversation_keys(panel.route, Conversation(tuple(thread.turns)))
            params.messages = route_of(panel.route).params_from_body(keys).messages
            if not params.prompt:
                params.prompt = None  # an empty box after a Send: the thread is the request
        return params

    def panel_variant(self, name: str) -> dict[str, Any]:
        from playground.ui.evaluate.sources import variant_from_params

        panel = self.window.current_panel()
        params = self._params_with_thread()
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
        """The History run selected, the Traffic exchanges selected (those saved) and the
        conversation selected in the Conversations list."""
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
            out += self._selected_conversation()
        return out

    def _selected_conversation(self) -> list[Path]:
        """The last run of the conversation selected in the Conversations list: its request is
        the whole thread and its last user turn, its answer the conversation's last."""
        conversation_id = self.window.docks.conversations_view.selected_id()
        if not conversation_id:
            return []
        from playground.runs.conversations import ConversationError

        try:
            saved = self.window.kept.store.load(conversation_id)
        except (ConversationError, OSError):
            return []
        kept = [run for run in saved.runs if run.capture]
        return [Path(kept[-1].capture)] if kept else []
