"""Which nodes of the JSON tree are open, by key path, kept per event type between rows."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem

__all__ = ["TreeExpansion"]

KEPT_TYPES = 64  # event types remembered (the names are data: a stream may invent thousands)
KEPT_PATHS = 4096  # nodes remembered per type (a tree holds up to 2000 children per level)

_Path = tuple[str, ...]


class TreeExpansion:
    """Stepping through events of one type, a node the reader opened (``delta``) or closed
    stays so: the tree of the next row is rebuilt, and its nodes take the state their key path
    had; paths never seen keep the tree's default."""

    def __init__(self) -> None:
        self._by_type: OrderedDict[str, dict[_Path, bool]] = OrderedDict()

    def remember(self, kind: str | None, tree: QTreeWidget) -> None:
        """Note the open and closed nodes of ``tree``, which shows an event of type ``kind``."""
        if kind is None:
            return
        state = self._by_type.pop(kind, {})
        for path, item in _nodes(tree):
            if len(state) >= KEPT_PATHS and path not in state:
                break
            state[path] = item.isExpanded()
        self._by_type[kind] = state
        while len(self._by_type) > KEPT_TYPES:
            self._by_type.popitem(last=False)

    def restore(self, kind: str, tree: QTreeWidget) -> None:
        """Open and close the nodes of ``tree`` (an event of type ``kind``) as last seen."""
        state = self._by_type.get(kind)
        if not state:
            return
        for path, item in _nodes(tree):
            expanded = state.get(path)
            if expanded is not None and item.isExpanded() != expanded:
                item.setExpanded(expanded)


def _nodes(tree: QTreeWidget) -> list[tuple[_Path, QTreeWidgetItem]]:
    """Every node that has children, with its key path, parents before children."""
    found: list[tuple[_Path, QTreeWidgetItem]] = []
    stack: list[tuple[_Path, QTreeWidgetItem]] = [((), tree.invisibleRootItem())]
    while stack:
        path, parent = stack.pop()
        for i in range(parent.childCount()):
            child = parent.child(i)
            if child is not None and child.childCount():
                here = (*path, child.text(0))
                found.append((here, child))
                stack.append((here, child))
    return found
