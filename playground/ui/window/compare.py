"""Compare from the main window: one compare window, started from the current panel's prompt,
or given a panel's whole thread (Send to → Compare) as every column's conversation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation
    from playground.transport.spec import RequestSpec
    from playground.ui.compare.window import ColumnConfig, CompareWindow
    from playground.ui.window.shell import MainWindow

__all__ = ["CompareLauncher"]


class CompareLauncher:
    """Opens (once) and raises the compare window; its columns' requests are the window's."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.compare_window: CompareWindow | None = None

    def open(self) -> CompareWindow:
        from playground.ui.compare.window import COMPARE_ROUTES, ColumnConfig, CompareWindow

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

    def open_thread(self, conversation: Conversation, prompt: str) -> CompareWindow:
        """Compare with ``conversation``'s turns before the prompt in every column, each in its
        route's shape; its system in the system box. A thread whose last turn is a user turn
        gives that turn to the prompt box, so Send to all asks it of every column."""
        compare = self.open()
        turns = conversation.turns
        if not prompt.strip() and turns and turns[-1].role == "user" and not turns[-1].images:
            prompt, turns = turns[-1].text, turns[:-1]
        compare.conversation = conversation.with_turns(turns) if turns else None
        compare.prompt.setPlainText(prompt)
        compare.system.setText(conversation.system or "")
        count = len(turns)
        compare.statusBar().showMessage(
            f"{count} earlier turn{'s' if count != 1 else ''} from the conversation go before"
            " the prompt in every column"
            if count
            else ""
        )
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
