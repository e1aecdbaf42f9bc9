"""Anthropic prompt cache breakpoints on a messages thread: "Cache up to here" on a turn's
context menu sets (or clears) ``cache_control`` on that turn's last content block, and each
marked turn shows a marker, also for the breakpoints a pasted body carried
(``Turn.cache_breakpoint``, protocol/conversation/messages.py writes and reads it)."""

from __future__ import annotations

import dataclasses
import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, Qt
from PySide6.QtWidgets import QLabel, QMenu

from playground.ui.kit.theme import tint

if TYPE_CHECKING:
    from playground.ui.conversation.thread import ConversationThread
    from playground.ui.conversation.turn_block import TurnBlock

__all__ = ["CacheMarks", "marker_text"]

MAX_BREAKPOINTS = 4  # Anthropic: at most four cache_control blocks in a request
LIFETIMES = {"5m": "5 min", "1h": "1 h"}


def marker_text(breakpoint: str) -> str:
    return f"⚑ cache breakpoint ({LIFETIMES.get(breakpoint, breakpoint)}): cached up to here"


class CacheMarks(QObject):
    """The breakpoints of one messages panel's thread: the turns' menus and markers."""

    def __init__(self, thread: ConversationThread) -> None:
        super().__init__(thread)
        self._thread = weakref.ref(thread)
        self._menus: weakref.WeakSet[TurnBlock] = weakref.WeakSet()  # blocks given a menu
        self._markers: weakref.WeakKeyDictionary[TurnBlock, QLabel] = weakref.WeakKeyDictionary()
        thread.changed.connect(self.refresh)
        thread.view.farBuilt.connect(self._attach)

    @property
    def count(self) -> int:
        thread = self._thread()
        return sum(1 for t in thread.turns if t.cache_breakpoint) if thread is not None else 0

    def set_breakpoint(self, index: int, breakpoint: str | None) -> None:
        """Turn ``index`` marked with ``breakpoint`` ("5m", "1h") or cleared (None); the body
        is built again with it."""
        thread = self._thread()
        if thread is None or not 0 <= index < len(thread.turns):
            return
        turn = thread.turns[index]
        if turn.cache_breakpoint == breakpoint:
            return
        thread.turns[index] = dataclasses.replace(turn, cache_breakpoint=breakpoint)
        thread.refresh()

    def refresh(self) -> None:
        thread = self._thread()
        if thread is None:
            return
        for block in thread.view.blocks:
            self._attach(block)

    def _attach(self, block: TurnBlock) -> None:
        """``block``'s menu (once) and its marker as its turn is now."""
        if block not in self._menus:
            block.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            block.customContextMenuRequested.connect(lambda point, b=block: self._menu(b, point))
            self._menus.add(block)
        self._mark(block, None if block.coming else block.turn.cache_breakpoint)

    def _mark(self, block: TurnBlock, breakpoint: str | None) -> None:
        label = self._markers.get(block)
        if label is None:
            if breakpoint is None:
                return
            label = QLabel()
            label.setObjectName("cacheMarker")
            tint(label, "#a05bd6", pixel_size=11)
            label.setToolTip(
                'cache_control: {"type": "ephemeral"} on this turn\'s last content block: the '
                "prompt up to here is written to (or read from) Anthropic's prompt cache. "
                "Right-click the turn to move or clear it."
            )
            block.box.insertWidget(1, label)  # under the turn's role and actions
            self._markers[block] = label
        label.setText(marker_text(breakpoint) if breakpoint else "")
        label.setVisible(breakpoint is not None)

    def menu_for(self, block: TurnBlock) -> QMenu:
        """The turn's menu: cache up to here (5 min or 1 h), or remove its breakpoint."""
        menu = QMenu(block)
        index, mark = block.index, block.turn.cache_breakpoint
        full = self.count >= MAX_BREAKPOINTS and mark is None
        for lifetime, words in (("5m", "Cache up to here"), ("1h", "Cache up to here for 1 h")):
            action = menu.addAction(words)
            action.setCheckable(True)
            action.setChecked(mark == lifetime)
            action.setEnabled(not full and not block.coming)
            action.triggered.connect(lambda _c=False, m=lifetime: self.set_breakpoint(index, m))
        if full:
            menu.addAction(f"(at most {MAX_BREAKPOINTS} breakpoints a request)").setEnabled(False)
        clear = menu.addAction("Remove the cache breakpoint")
        clear.setEnabled(mark is not None)
        clear.triggered.connect(lambda: self.set_breakpoint(index, None))
        return menu

    def _menu(self, block: TurnBlock, point: QPoint) -> None:
        self.menu_for(block).popup(block.mapToGlobal(point))
