"""A route panel on the session's simulator, shown offscreen, as the panel tests build it."""

from __future__ import annotations

from typing import Any

from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


def sim_panel(route: str, sim: Any, model: str = "sim-reasoner", pace: str = "fast") -> Any:
    """A ``RoutePanel`` for ``route`` whose requests go to ``sim`` at ``pace``, 1000×700."""
    from playground.ui.panels.route_panel import RoutePanel

    def factory(route: str, body: dict[str, Any], files: Any, headers: dict[str, str]) -> Any:
        return make_spec(
            provider_by_id("simulator"),
            route,
            body,
            None,
            base_url=sim.base_url,
            files=files,
            sim_headers=headers,
        )

    panel = RoutePanel(route, factory)
    panel.editor.set_model(model)
    panel.set_pace(pace)
    panel.resize(1000, 700)
    panel.show()
    return panel
