"""The raw event inspector: timeline model, filter, detail pane, request/response views."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .inspector import Inspector

if TYPE_CHECKING:
    from .timeline_filter import TimelineFilter
    from .timeline_model import TimelineModel

__all__ = ["Inspector", "TimelineFilter", "TimelineModel"]


def __getattr__(name: str) -> Any:
    # The model and filter (with the stream decoder and its JSON library) load when first asked
    # for: the window's first frame shows the empty timeline without them (issue 7: startup).
    if name == "TimelineModel":
        from .timeline_model import TimelineModel

        return TimelineModel
    if name == "TimelineFilter":
        from .timeline_filter import TimelineFilter

        return TimelineFilter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
