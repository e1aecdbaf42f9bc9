"""The route panels of the window: a placeholder per tab until a panel is built, and the map."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from PySide6.QtWidgets import QWidget

from playground.protocol.requests import ROUTE_NAMES
from playground.ui.panels.route_panel import RoutePanel

__all__ = ["PanelMap", "Placeholder"]


class Placeholder(QWidget):
    """The tab page of a route whose panel is not built yet (the first frame builds one)."""

    def __init__(self, route: str) -> None:
        super().__init__()
        self.route = route


class PanelMap(Mapping[str, RoutePanel]):
    """``MainWindow.panels``: every route's panel by name, built the first time it is asked for.

    Building all seven panels before the first paint tripled the startup time, so only
    the current one is built then; ``in``, ``len`` and iterating the keys never build anything,
    ``panels[route]``, ``.values()`` and ``.items()`` build what they hand out. Code that only
    needs to touch what exists (closing, settings) uses ``built()``.
    """

    def __init__(
        self, build: Callable[[str], RoutePanel], built: Callable[[RoutePanel], None]
    ) -> None:
        """``build(route)`` makes a panel; ``built(panel)`` hears of it once it is listed here
        (so its handlers may index the map)."""
        self._build = build
        self._on_built = built
        self._built: dict[str, RoutePanel] = {}

    def __getitem__(self, route: str) -> RoutePanel:
        panel = self._built.get(route)
        if panel is None:
            if route not in ROUTE_NAMES:
                raise KeyError(route)
            panel = self._build(route)
            self._built[route] = panel
            self._on_built(panel)
        return panel

    def __iter__(self) -> Iterator[str]:
        return iter(ROUTE_NAMES)

    def __len__(self) -> int:
        return len(ROUTE_NAMES)

    def __contains__(self, route: object) -> bool:
        return route in ROUTE_NAMES

    def is_built(self, route: str) -> bool:
        return route in self._built

    def built(self) -> dict[str, RoutePanel]:
        """The panels built so far, in route order (no building)."""
        return {r: self._built[r] for r in ROUTE_NAMES if r in self._built}
