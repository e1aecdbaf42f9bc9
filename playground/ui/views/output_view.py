"""OutputView: what every output widget does for its panel (reset, follow a state, finish, link),
and ViewHost: what a view may ask of the panel it is shown in."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from playground.protocol.state import StreamState
    from playground.ui.runtime.session import StreamSession

__all__ = ["OutputView", "ViewHost"]


@runtime_checkable
class OutputView(Protocol):
    """An output widget: it follows one run's StreamState incrementally, never re-reads bytes."""

    def reset(self) -> None:
        """A new run starts: show nothing."""

    def refresh(self, state: StreamState) -> None:
        """Show what ``state`` holds now (called at most once per frame)."""

    def finish(self, state: StreamState) -> None:
        """The run ended: show its last state (and mark it incomplete when it is)."""

    def has_content(self) -> bool:
        """Whether the view shows anything of the run."""

    def highlight_item(self, item: int) -> None:
        """Show which part of the view timeline item ``item`` made (the linked views)."""


@runtime_checkable
class ViewHost(Protocol):
    """The panel a view is shown in (``panels/route_panel.RoutePanel``), as a view sees it: found
    up the widget tree, so the views need not import the panels that hold them."""

    session: StreamSession

    def built_widgets(self) -> dict[str, QWidget]:
        """The panel's output views built so far, by role."""
        ...
