"""Linked views glue: a view that names timeline items (the timing chart) joins the window's links.

The window already links the panel widgets and the inspector both ways (widget ``itemActivated``
-> ``inspector.select_item``; ``inspector.itemSelected`` -> widget ``highlight_item``). Extra
views join the same loop here: clicking an item in one selects the timeline row *and* highlights
the item's contribution in every output widget, since ``Inspector.select_item`` selects quietly
(it does not re-emit ``itemSelected``).
"""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["activate_item", "link_view", "text_item_at", "text_spans"]


def activate_item(window: Any, item: int, *, source: Any = None) -> None:
    """Select timeline item ``item`` in the inspector and highlight it in the current panel."""
    inspector = getattr(window, "inspector", None)
    if inspector is not None:
        with contextlib.suppress(Exception):
            inspector.select_item(item)
    try:
        panel = window.current_panel()
    except Exception:
        panel = None
    widgets = list(getattr(panel, "widgets", {}).values()) if panel is not None else []
    for view in [*widgets, *getattr(window, "_linked_views", [])]:
        if view is source:
            continue
        highlight = getattr(view, "highlight_item", None)
        if highlight is not None:
            with contextlib.suppress(Exception):
                highlight(item)


def link_view(window: Any, view: Any) -> None:
    """Join ``view`` (with ``itemActivated`` and ``highlight_item``) to the window's links."""
    views: list[Any] = getattr(window, "_linked_views", None) or []
    if view in views:
        return
    views.append(view)
    window._linked_views = views
    signal = getattr(view, "itemActivated", None)
    if signal is not None:
        signal.connect(lambda item, v=view: activate_item(window, item, source=v))
    inspector = getattr(window, "inspector", None)
    selected = getattr(inspector, "itemSelected", None)
    if selected is not None and hasattr(view, "highlight_item"):
        selected.connect(view.highlight_item)


def text_item_at(buffer: Any, offset: int) -> int | None:
    """The timeline item that carried character ``offset`` of a TextBuffer (None past the end)."""
    try:
        found = buffer.item_at(offset)
    except Exception:
        return None
    return found if isinstance(found, int) else None


def text_spans(buffer: Any, item: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` character ranges timeline item ``item`` added to a TextBuffer."""
    try:
        return list(buffer.spans_of(item))
    except Exception:
        return []
