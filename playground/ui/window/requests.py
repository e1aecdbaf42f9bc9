"""The window's requests: each panel's and compare column's spec, and each run's history journal."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playground.transport.pipeline import RunSink
    from playground.transport.providers import Provider
    from playground.transport.spec import RequestSpec
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["WindowRequests"]


class WindowRequests:
    """Builds every request the window sends (one make_spec) and the journal of each run."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window

    def panel_spec(
        self, route: str, body: dict[str, Any], files: list[Any] | None, sim_headers: dict[str, str]
    ) -> RequestSpec | None:
        """The request of ``route``'s panel at the provider the bar shows."""
        return self.make_spec(
            self.window.provider_bar.provider(),
            route,
            body,
            base_url=None,
            model=self.window.provider_bar.model_for(route),
            files=files,
            sim_headers=sim_headers,
        )

    def make_spec(
        self,
        provider: Provider,
        route: str,
        body: dict[str, Any],
        *,
        base_url: str | None,
        model: str | None,
        files: list[Any] | None = None,
        sim_headers: dict[str, str] | None = None,
    ) -> RequestSpec | None:
        """A request at ``provider`` with the window's simulator URL, the keyring's key and the
        plain-http key question (every sender of the window builds its request here)."""
        from playground.transport.secrets import get_key
        from playground.transport.spec import make_spec

        if base_url:
            base: str | None = base_url
        elif provider.builtin:
            base = self.window.ensure_simulator()
        elif provider.id == self.window.provider_bar.provider().id:
            base = self.window.provider_bar.base_url()
        else:
            base = provider.base_url
        key = None if provider.builtin else get_key(provider)
        return make_spec(
            provider,
            route,
            body,
            key,
            base_url=base,
            files=files,
            sim_headers=sim_headers,
            model=model,
            ask_key_over_http=self._ask_key_over_http if self.window.interactive else None,
        )

    def _ask_key_over_http(self, spec: RequestSpec) -> bool:
        """Whether the user agrees to send the key unencrypted (a headless run never asks: the
        transport then refuses it and the panel says why)."""
        from PySide6.QtWidgets import QMessageBox

        answer = QMessageBox.warning(
            self.window,
            "Send the key unencrypted?",
            "This base URL uses plain http to another machine: the API key would travel "
            "unencrypted. Send anyway?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def recorder_for(self, panel: RoutePanel) -> Callable[[RequestSpec], RunSink | None]:
        """Each live run of ``panel`` is journaled into the history as it streams."""

        def factory(spec: RequestSpec) -> RunSink | None:
            history = self.window.history
            if history is None:
                return None
            session = panel.session
            model = spec.json_body.get("model", "") if isinstance(spec.json_body, dict) else ""
            recorder = history.start_run(
                panel.route,
                provider_id=spec.provider_id,
                model=str(model or ""),
                secrets=tuple(spec.secrets()),
                status_source=lambda: session.state.status if session.state is not None else None,
            )
            # The conversation this run continues lists it, with its capture.
            self.window.kept.note_run(panel, recorder.run_id, str(recorder.path))
            return recorder

        return factory
