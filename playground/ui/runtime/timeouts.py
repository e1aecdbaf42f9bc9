"""The stream timeouts set in Settings, read from QSettings (every panel's session uses them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

__all__ = ["FIRST_BYTE_RANGE", "STALL_RANGE", "first_byte_timeout", "stall_seconds"]

# What the Settings dialog offers. A settings file may hold less than its minimum (a script's
# short timeout), but nothing up to zero or past the maximum: a negative, zero or NaN timeout
# fails every run at once and a huge one hangs it, so the default stands in for those.
STALL_RANGE = (1.0, 600.0)
FIRST_BYTE_RANGE = (1.0, 3600.0)


def stall_seconds(settings: QSettings) -> float:
    """The stall watchdog's silence threshold (configurable)."""
    return _seconds(settings.value("stall_seconds", 10.0), 10.0, STALL_RANGE)


def first_byte_timeout(settings: QSettings) -> float:
    """How long a run waits for its first byte (configurable)."""
    return _seconds(settings.value("first_byte_timeout", 60.0), 60.0, FIRST_BYTE_RANGE)


def _seconds(value: object, default: float, bounds: tuple[float, float]) -> float:
    try:
        seconds = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return default
    return seconds if 0 < seconds <= bounds[1] else default  # NaN fails both comparisons
