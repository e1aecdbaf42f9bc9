"""The selection hub: a timeline item chosen in one view is selected or highlighted in the others.

Three kinds of view take part: the inspector's timeline (``select_item`` selects a row quietly,
without re-emitting ``itemSelected``), the current panel's output widgets, and extra views that
name timeline items (the timing chart). A row chosen in the inspector is highlighted in the
panel's widgets and the extra views; an item activated in a widget selects the row; one
activated in an extra view selects the row and is highlighted in every other view.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Protocol

from PySide6.QtCore import QObject, SignalInstance

__all__ = ["ItemView", "LinkedView", "SelectionHub"]


class ItemView(Protocol):
    """A view that can show which part of it a timeline item made."""

    def highlight_item(self, item: int) -> None: ...


class LinkedView(ItemView, Protocol):
    """A view that also names timeline items when the user picks one."""

    @property
    def itemActivated(self) -> SignalInstance: ...


class Timeline(Protocol):
    """The inspector's side: select a row quietly, and say when the user picked one."""

    def select_item(self, item: int) -> None: ...
    @property
    def itemSelected(self) -> SignalInstance: ...


class SelectionHub(QObject):
    """Links the timeline, the current panel's output widgets and extra views both ways."""

    def __init__(
        self,
        timeline: Timeline,
        panel_views: Callable[[bool], Iterable[ItemView]],
        parent: QObject | None = None,
    ) -> None:
        """``panel_views(build)``: the current panel's output widgets (built first if asked)."""
        super().__init__(parent)
        self.timeline = timeline
        self.panel_views = panel_views
        self.views: list[LinkedView] = []
        timeline.itemSelected.connect(self._row_selected)

    def join(self, view: LinkedView) -> None:
        """Add an extra view (once): its items select rows, rows highlight its items."""
        if view in self.views:
            return
        self.views.append(view)
        view.itemActivated.connect(lambda item, v=view: self.activate(item, source=v))

    def widget_activated(self, item: int, *, source: object = None) -> None:
        """An output widget named ``item``: the timeline shows its row. When the widget is one of
        the current panel's (``source``), the panel's other views and the extra views show the
        item too, so none keeps the highlight of a row no longer selected (a word clicked in the
        answer left the thinking marked for the row chosen before). Without a source (the
        Traffic panel's views, of another session than the panel's) only the row is selected."""
        self.timeline.select_item(item)
        if source is None:
            return
        for view in [*self.panel_views(False), *self.views]:
            if view is not source:
                _highlight(view, item)

    def activate(self, item: int, *, source: ItemView | None = None) -> None:
        """Select ``item``'s row and highlight it in every view but ``source``."""
        with contextlib.suppress(Exception):
            self.timeline.select_item(item)
        for view in [*self.panel_views(True), *self.views]:
            if view is not source:
                _highlight(view, item)

    def _row_selected(self, item: int) -> None:
        # Widgets not built yet show nothing: they are not built for this.
        for view in [*self.panel_views(False), *self.views]:
            _highlight(view, item)


def _highlight(view: ItemView, item: int) -> None:
    with contextlib.suppress(Exception):  # a view's bug must not break the others' links
        view.highlight_item(item)
