"""Compare from the main window: one compare window, started from the current panel's prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from playground.transport.spec import RequestSpec
    from playground.ui.compare_window import ColumnConfig, CompareWindow
    from playground.ui.window.shell import MainWindow

__all__ = ["CompareLauncher"]


class CompareLauncher:
    """Opens (once) and raises the compare window; its columns' requests are the window's."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.compare_window: CompareWindow | None = None

    def open(self) -> CompareWindow:
        from playground.ui.compare_window import COMPARE_ROUTES, ColumnConfig, CompareWindow

        if self.compare_window is not None:
            self.compare_window.show()
            self.compare_window.raise_()
            return self.compare_window
        window = self.window
        bar = window.provider_bar
        provider = bar.provider()
        routes = [r for r in COMPARE_ROUTES if r in provider.routes] or ["chat"]
        configs = [ColumnConfig(r, provider.id, bar.model(), "") for r in routes]
        panel = window.current_panel()
        pace = panel.pace.currentData()
        compare = CompareWindow(
            configs,
            spec_maker=self.spec,
            sim_headers={"X-Sim-Pace": str(pace)} if pace else None,
        )
        params = panel.editor.params()  # start from the prompt the panel holds
        prompt = params.prompt or next(
            (m.get("content") for m in reversed(params.messages) if m.get("role") == "user"),
            None,
        )
        if isinstance(prompt, str):
            compare.prompt.setPlainText(prompt)
        compare.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        compare.show()
        self.compare_window = compare
        return compare

    def spec(self, config: ColumnConfig, body: dict[str, Any]) -> RequestSpec | None:
        """A compare column's request, with the window's simulator URL, keys and key question."""
        from playground.transport.providers import provider_by_id

        window = self.window
        bar = window.provider_bar
        provider = provider_by_id(config.provider_id)
        sim_headers = self.compare_window.sim_headers if self.compare_window is not None else None
        return window.requests.make_spec(
            provider,
            config.route,
            body,
            base_url=config.base_url or None,
            model=(bar.model() or None) if provider.id == bar.provider().id else None,
            sim_headers=sim_headers,
        )
