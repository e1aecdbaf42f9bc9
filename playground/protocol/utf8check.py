"""Spot invalid UTF-8 in the body as chunks arrive (the SSE parser decodes with errors="replace").

An SSE stream is UTF-8 (WHATWG "event stream" parsing decodes it so, replacing bad sequences);
binary bytes in it are a server fault the user should see, even when they sit on a line the
parser ignores and so never reach an event. The check costs one ``isascii`` per chunk, and one
C-level UTF-8 validation only for chunks with non-ASCII bytes; a sequence cut by a chunk boundary
is carried to the next chunk.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playground.protocol.findings import FindingSink
    from playground.protocol.sse import SSEItem

__all__ = ["Utf8Watch"]

_decode: Final = codecs.utf_8_decode
_MAX_REPORTS: Final = 64  # after this many bad lines, stop looking (binary junk floods otherwise)


class Utf8Watch:
    """Feed every body chunk with its stream offset; ``bad`` collects offsets of invalid bytes."""

    __slots__ = ("_carry", "_skip", "bad", "found", "reported")

    def __init__(self) -> None:
        self._carry = b""
        self._skip = False  # inside a line already reported: look again after its line feed
        self.bad: list[int] = []  # stream offsets not yet tied to an item (the caller pops them)
        self.found = 0  # how many were found in all
        self.reported: set[int] = set()  # items already given an invalid_utf8 finding

    def check(self, chunk: bytes, offset: int) -> bool:
        """Validate ``chunk`` (which starts at stream ``offset``); True if it added to ``bad``."""
        if self._skip:
            nl = chunk.find(b"\n")
            if nl < 0:
                return False
            self._skip = False
            chunk = chunk[nl + 1 :]
            offset += nl + 1
        carry = self._carry
        if not carry and chunk.isascii():
            return False
        if self.found >= _MAX_REPORTS:
            self._carry = b""
            return False
        data = carry + chunk if carry else chunk
        base = offset - len(carry)
        view = memoryview(data)
        pos = 0
        size = len(data)
        added = False
        while pos < size:
            try:
                _, used = _decode(view[pos:], "strict", False)
            except UnicodeDecodeError as exc:
                bad = pos + exc.start
                self.bad.append(base + bad)
                self.found += 1
                added = True
                if self.found >= _MAX_REPORTS:
                    break
                # One report per line: skip to the next line feed after the bad byte.
                nl = data.find(b"\n", bad)
                if nl < 0:
                    self._skip = True
                    pos = size
                    break
                pos = nl + 1
                continue
            pos += used
            break
        self._carry = bytes(view[pos:]) if pos < size else b""
        return added

    def resync(self) -> None:
        """The caller skipped bytes it proved valid, ending at a line end: nothing carries over."""
        self._carry = b""
        self._skip = False

    def flush(self, offset: int) -> bool:
        """The body ended (at stream ``offset``): a sequence still cut short is invalid."""
        carry = self._carry
        self._carry = b""
        if not carry or self.found >= _MAX_REPORTS:
            return False
        self.bad.append(offset - len(carry))
        self.found += 1
        return True

    def tie(self, items: Sequence[SSEItem], sink: FindingSink, *, final: bool = False) -> None:
        """Report invalid UTF-8 at the item whose bytes held it (or the next one, for a line the
        SSE parser ignored); offsets not reached by ``items`` yet wait for later ones."""
        bad = self.bad
        keep: list[int] = []
        for offset in bad:
            found = None
            for item in items:
                if item.end > offset:
                    found = item
                    break
            if found is None and final and items:
                found = items[-1]
            if found is None:
                if final:
                    sink.report("invalid_utf8", "the body ends inside a UTF-8 sequence", None)
                else:
                    keep.append(offset)
                continue
            if found.index in self.reported:
                continue
            self.reported.add(found.index)
            if offset < found.start:
                where = "on a line before this event (binary junk the SSE parser ignored)"
            elif offset < found.end:
                where = "in this event (the bad bytes read as U+FFFD)"
            else:
                where = "after the last event"
            sink.report("invalid_utf8", f"invalid UTF-8 at byte {offset} {where}", found.index)
        bad[:] = keep
