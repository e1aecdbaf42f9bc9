"""Which request paths the proxy relays: only normalised ones (no dot segments, no empty segments,
no percent-encoded slash, dot or backslash), so no client reaches an upstream path outside the
base path with the key it sent.

Why refuse rather than normalise: ``/v1/../outside`` is ``/outside`` to the upstream (RFC 3986
§5.2.4 removes dot segments, and so do most servers and every HTTP client library), and an
encoded ``%2e%2e`` or ``%2f`` is decoded by some servers and not by others: what the proxy
checked against its base path would then not be the path the upstream serves. No client of an
OpenAI-compatible API needs any of these, so a 400 that says why is the safe answer.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["unsafe_path"]

# %2e (.), %2f (/), %5c (\) in either case, and %25 (an encoded %: decoded twice by some stacks).
_ENCODED: Final = re.compile(r"%(?:2e|2f|5c|25)", re.IGNORECASE)


def unsafe_path(path: str) -> str | None:
    """Why ``path`` (the raw request path, no query) is not relayed, or None when it may be."""
    if not path.startswith("/"):
        return "a request path starts with /"
    if "\\" in path:
        return "a backslash in the path"
    if _ENCODED.search(path):
        return "a percent-encoded dot, slash, backslash or percent sign in the path"
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in path):
        return "a control character or space in the path"
    segments = path[1:].split("/")
    # A trailing slash is one empty last segment (``/v1/models/``): allowed; ``//`` is not.
    inner = segments[:-1] if segments and segments[-1] == "" else segments
    if any(s == "" for s in inner):
        return "an empty segment (//) in the path"
    if any(s in (".", "..") for s in segments):
        return "a dot segment (. or ..) in the path"
    return None
