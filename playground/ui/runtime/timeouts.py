"""The stream timeouts set in Settings, read from QSettings (every panel's session uses them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

__all__ = ["first_byte_timeout", "stall_seconds"]


def stall_seconds(settings: QSettings) -> float:
    """The stall watchdog's silence threshold (configurable)."""
    return _float(settings.value("stall_seconds", 10.0), 10.0)


def first_byte_timeout(settings: QSettings) -> float:
    return _float(settings.value("first_byte_timeout", 60.0), 60.0)


def _float(value: object, default: float) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
