"""Where the program keeps its data: PLAYGROUND_DATA_DIR, else the platform's user data folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["APP_NAME", "data_dir"]

APP_NAME = "playground"


def data_dir() -> Path:
    """The data folder (not created here): the env override, else the platform's convention."""
    override = os.environ.get("PLAYGROUND_DATA_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / APP_NAME
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / APP_NAME
    # XDG Base Directory spec, as platformdirs' user_data_dir does on Linux.
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / APP_NAME
