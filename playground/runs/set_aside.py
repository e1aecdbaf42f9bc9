"""Files the program reads back that cannot be read: renamed ``*.corrupt``, so the feature goes on.

A damaged index, preset or settings file is kept for whoever wants to look at it, out of the
way of the next write (a new file is written in its place), and the caller says so in one line.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["set_aside"]


def set_aside(path: Path) -> Path:
    """Rename ``path`` (a file, or a folder in a file's place) to ``path.corrupt``, numbered if
    one is there already; returns the new path. OSError when the rename itself fails."""
    path = Path(path)
    target = path.with_name(path.name + ".corrupt")
    n = 1
    while target.exists() or target.is_symlink():
        target = path.with_name(f"{path.name}.{n}.corrupt")
        n += 1
    os.replace(path, target)
    return target
