"""A Qt timer that notes when it fires, so a test can see whether the UI thread ever froze."""

from __future__ import annotations

import itertools
import time
from typing import Any


class FreezeWatch:
    """Ticks every ``interval_ms`` on the Qt loop; a long gap between ticks is a blocked UI."""

    def __init__(self, interval_ms: int = 20) -> None:
        self.interval_ms = interval_ms
        self.ticks: list[float] = []
        self._timer: Any = None

    def start(self) -> FreezeWatch:
        from PySide6.QtCore import QTimer

        self.ticks.clear()
        self._timer = QTimer()
        self._timer.setInterval(self.interval_ms)
        self._timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))
        self._timer.start()
        return self

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def gaps(self) -> list[float]:
        """Seconds between consecutive ticks."""
        return [b - a for a, b in itertools.pairwise(self.ticks)]
