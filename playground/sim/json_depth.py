"""The simulator's JSON reader for request bodies and recordings: Python's, with a depth guard.

The simulator shares no code with the rest of the project, so this is its own small copy of
what ``playground.protocol.safe_json`` does: Python's ``json`` raises ``RecursionError`` (not a
``ValueError``) past about 1,000 nested levels, so a request nested that deep would end the
handler with a 500 and a traceback instead of the answer a malformed request gets. Here anything
too deep, like anything that is not JSON, is a ``ValueError``.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

__all__ = ["MAX_DEPTH", "loads"]

MAX_DEPTH: Final = 256  # deeper than any request a client builds; far from Python's limit
_STRING: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")


def _too_deep(raw: bytes) -> bool:
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return False  # one pass in C: fewer openers than the limit cannot nest past it
    depth = 0
    for byte in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        depth += 1 if byte in b"[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def loads(data: str | bytes, **options: Any) -> Any:
    """``json.loads(data, **options)``; ``ValueError`` for anything nested deeper than
    ``MAX_DEPTH`` as for anything that is not JSON."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if _too_deep(raw):
        raise ValueError(f"JSON nested deeper than {MAX_DEPTH} levels")
    return json.loads(data, **options)
