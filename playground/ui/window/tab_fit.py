"""The panel tabs in a narrow window: short titles, then icons only (title in the tooltip)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QTabWidget

__all__ = ["TabFit"]


class TabFit(QObject):
    """Shows the tabs' full titles while they fit in ``tabs``'s width, then their first words
    ("Chat"), then icons only.

    At 1024 px the seven titles needed scroll arrows and half of them were out of sight; seven
    icons fit, and each tab's tooltip keeps its title.
    """

    def __init__(self, tabs: QTabWidget, titles: list[str]) -> None:
        super().__init__(tabs)
        self.tabs = tabs
        self.titles = titles
        self.levels = (titles, [t.split()[0] for t in titles], [""] * len(titles))
        self.level = 0
        tabs.installEventFilter(self)

    def _needed(self, texts: list[str]) -> int:
        """The tab bar's width with ``texts`` as the titles."""
        bar = self.tabs.tabBar()
        metrics = bar.fontMetrics()
        width = 0
        for i in range(min(bar.count(), len(texts))):
            extra = metrics.horizontalAdvance(texts[i]) - metrics.horizontalAdvance(bar.tabText(i))
            width += bar.tabSizeHint(i).width() + extra
        return width + 8  # a tab's frame is a few pixels wider than its hint's sum

    @property
    def compact(self) -> bool:
        return self.level > 0

    def apply(self) -> None:
        """Titles, short titles or icons for the present width (also after a page swap)."""
        room = self.tabs.width()
        level = next(
            (n for n, texts in enumerate(self.levels) if self._needed(texts) <= room),
            len(self.levels) - 1,
        )
        self.level = level
        bar = self.tabs.tabBar()
        for i in range(min(bar.count(), len(self.titles))):
            text = self.levels[level][i]
            if bar.tabText(i) != text:
                bar.setTabText(i, text)
            if bar.tabToolTip(i) != self.titles[i]:
                bar.setTabToolTip(i, self.titles[i])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.tabs and event.type() == QEvent.Type.Resize:
            self.apply()
        return False
