"""Where to save: the path a caller gave, or one the user picks (only when someone is there)."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QWidget

__all__ = ["ask_save_path"]


def ask_save_path(
    parent: QWidget, target: str | None, interactive: bool, title: str, name: str, kinds: str
) -> str | None:
    """``target`` if given, else ask (interactive only); None when there is nowhere to save."""
    if target is not None:
        return target
    if not interactive:
        return None
    chosen, _ = QFileDialog.getSaveFileName(parent, title, name, kinds)
    return chosen or None
