"""The route table of the window: every route's panel is built from it alone, views and all."""

from __future__ import annotations

from typing import Any


def test_every_routes_panel_shows_the_views_its_table_entry_names(qtbot: Any) -> None:
    from playground.protocol.requests import ROUTE_NAMES
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.views.output_view import OutputView
    from playground.ui.views.routes import ROUTE_VIEWS

    assert set(ROUTE_VIEWS) == set(ROUTE_NAMES)
    for route, entry in ROUTE_VIEWS.items():
        panel = RoutePanel(route, defer_output=True)
        qtbot.addWidget(panel)
        assert not panel.output_built and panel.empty.text() == entry.empty_text
        assert list(panel.widgets) == [role for role, _make in entry.views]
        assert all(isinstance(view, OutputView) for view in panel.views.values())
        assert set(entry.on_content) <= set(panel.widgets)
