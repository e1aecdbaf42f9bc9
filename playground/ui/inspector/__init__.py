"""The raw event inspector: timeline model, filter, detail pane, request/response views."""

from __future__ import annotations

from .inspector import Inspector
from .timeline_filter import TimelineFilter
from .timeline_model import TimelineModel

__all__ = ["Inspector", "TimelineFilter", "TimelineModel"]
