"""An icon drawn from one of two files, the light or the dark variant, chosen as it is painted.

The palette can change after an icon is set (the first frame's palette is the platform's; the
system's scheme, read after it, or a later change of it may differ), so the choice is made at
paint time from ``theme.is_dark()``, not once when the icon is made.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QIcon, QIconEngine, QPainter, QPixmap

from playground.ui.kit import theme

__all__ = ["themed_icon"]


class _ThemedEngine(QIconEngine):
    def __init__(self, light: Path, dark: Path) -> None:
        super().__init__()
        self._paths = (light, dark)
        self._icons: dict[bool, QIcon] = {}

    def _icon(self) -> QIcon:
        dark = theme.is_dark()
        icon = self._icons.get(dark)
        if icon is None:
            icon = self._icons[dark] = QIcon(str(self._paths[dark]))
        return icon

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        self._icon().paint(painter, rect, Qt.AlignmentFlag.AlignCenter, mode, state)

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self._icon().pixmap(size, mode, state)

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        return size  # an SVG draws at any size

    def clone(self) -> QIconEngine:
        return _ThemedEngine(*self._paths)

    def key(self) -> str:
        return "playground-themed"


def themed_icon(light: Path, dark: Path) -> QIcon:
    """``light`` on a light palette, ``dark`` on a dark one, whichever is in use when drawn."""
    return QIcon(_ThemedEngine(light, dark))
