"""The route tabs and the Send to menu show the icons drawn for the project, in the variant of
the palette in use: not Qt's standard pixmaps, and different in the light and dark themes."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QImage

from playground.protocol.requests import ROUTE_NAMES

SIZE = 16


def _image(icon: Any) -> QImage:
    image: QImage = icon.pixmap(SIZE, SIZE).toImage()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


@pytest.fixture
def dark_theme(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Switch ``theme.is_dark()`` as the palette's change would, and back after the test."""
    from playground.ui.kit import theme

    def use(dark: bool) -> None:
        monkeypatch.setattr(theme, "_dark", dark)

    return use


def test_each_tab_has_the_projects_icon_in_either_theme(window: Any, dark_theme: Any) -> None:
    from playground.ui.views.routes import route_views

    tabs = window.tabs
    seen: dict[bool, list[QImage]] = {}
    for dark in (False, True):
        dark_theme(dark)
        images = []
        for i, route in enumerate(ROUTE_NAMES):
            assert tabs.tabText(i).lower().startswith(route[:4])
            shown = _image(tabs.tabIcon(i))
            standard = _image(window.style().standardIcon(route_views(route).icon))
            assert shown != standard, route  # not a QStyle pixmap
            drawn = [
                (x, y) for x in range(SIZE) for y in range(SIZE) if shown.pixelColor(x, y).alpha()
            ]
            assert len(drawn) > SIZE, route  # something is drawn
            images.append(shown)
        seen[dark] = images
        assert len({bytes(im.constBits()) for im in images}) == len(ROUTE_NAMES)  # distinct
    for route, light_image, dark_image in zip(ROUTE_NAMES, seen[False], seen[True], strict=True):
        assert light_image != dark_image, route  # the two themes differ


def test_built_panels_keep_the_icon(window: Any, dark_theme: Any) -> None:
    from playground.ui.views.routes import route_icon

    dark_theme(False)
    for route in ROUTE_NAMES:
        window.panels[route]  # built: its panel replaces the placeholder tab
    for i, route in enumerate(ROUTE_NAMES):
        assert _image(window.tabs.tabIcon(i)) == _image(route_icon(route))


def test_send_to_menu_has_the_route_icons(window: Any, dark_theme: Any) -> None:
    from playground.ui.views.routes import route_icon

    dark_theme(True)
    panel = window.show_panel("chat")
    actions = panel.conversation.view.send_to_menu.actions()
    routes = [a.data() for a in actions if a.data() != "compare"]
    assert routes and set(routes) <= set(ROUTE_NAMES)
    for action in actions:
        if action.data() in ROUTE_NAMES:
            assert _image(action.icon()) == _image(route_icon(action.data()))
        else:
            assert action.icon().isNull()  # Compare is no route


def test_a_missing_drawn_icon_falls_back_to_the_standard_pixmap(qapp: Any) -> None:
    from playground.ui.views import routes

    routes._ICONS.pop("nowhere", None)
    saved = routes.ROUTE_VIEWS.get("chat")
    assert saved is not None
    routes.ROUTE_VIEWS["nowhere"] = saved
    try:
        icon = routes.route_icon("nowhere")
        standard = qapp.style().standardIcon(saved.icon)
        assert _image(icon) == _image(standard)
    finally:
        del routes.ROUTE_VIEWS["nowhere"]
        routes._ICONS.pop("nowhere", None)
