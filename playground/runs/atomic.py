"""A JSON file written atomically: a temporary file beside it, flushed to disk, renamed over it,
so a crash leaves the old file or the new one, never half of one (the history index, presets)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["write_json_atomically"]


def write_json_atomically(target: Path, data: Any, *, prefix: str) -> None:
    """``data`` as JSON at ``target``; the temporary file is ``<prefix>….tmp`` in its folder."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, ensure_ascii=False, indent=1)
            file.flush()
            os.fsync(file.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
