"""The window's layout audit: its minimum size and every pair of visible siblings that overlap."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["audit_layout", "overlaps"]

_DIRECT = Qt.FindChildOption.FindDirectChildrenOnly


def _name(widget: QWidget) -> str:
    name = widget.objectName()
    kind = type(widget).__name__
    return f"{kind}#{name}" if name else kind


def _path(widget: QWidget, top: QWidget) -> str:
    parts = []
    node: QWidget | None = widget
    while node is not None and node is not top:
        parts.append(_name(node))
        node = node.parentWidget()
    return "/".join(reversed(parts))


def _visible_children(widget: QWidget) -> list[QWidget]:
    # Windows (dialogs, popups, tooltips) are not drawn inside their parent: not siblings.
    return [
        c
        for c in widget.findChildren(QWidget, options=_DIRECT)
        if c.isVisible() and not c.isWindow() and c.width() > 0 and c.height() > 0
    ]


def _walk(widget: QWidget) -> Iterator[QWidget]:
    yield widget
    for child in _visible_children(widget):
        yield from _walk(child)


def overlaps(top: QWidget) -> list[str]:
    """Every pair of visible sibling widgets under ``top`` whose geometries intersect.

    Each entry reads "parent path: A × B". A widget drawn over a sibling is what a too-small
    window shows as figures on top of each other; the layouts never do this on purpose.
    """
    found: list[str] = []
    for parent in _walk(top):
        children = _visible_children(parent)
        for i, a in enumerate(children):
            ga = a.geometry()
            for b in children[i + 1 :]:
                if ga.intersects(b.geometry()):
                    where = _path(parent, top) or _name(top)
                    found.append(f"{where}: {_name(a)} × {_name(b)}")
    return found


def audit_layout(window: QWidget) -> dict[str, Any]:
    """The dump's ``layout``: the window's minimum size and its overlapping siblings."""
    hint = window.minimumSizeHint().expandedTo(window.minimumSize())
    return {
        "min_width": hint.width(),
        "min_height": hint.height(),
        "overlaps": overlaps(window),
    }
