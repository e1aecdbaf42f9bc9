"""A downsampled min/max envelope of 16-bit PCM, extended incrementally as audio arrives."""

from __future__ import annotations

import sys
from array import array

__all__ = ["Envelope"]


class Envelope:
    """Min/max per bucket of ``bucket`` samples (10 ms at 24 kHz by default).

    Only new bytes are processed on each ``add``; a waveform widget paints these buckets, never the
    samples, so its cost does not grow with the sample count.
    """

    __slots__ = ("_carry", "bucket", "maxs", "mins")

    def __init__(self, bucket: int = 240) -> None:
        self.bucket = bucket
        self.mins = array("h")
        self.maxs = array("h")
        self._carry = b""

    def __len__(self) -> int:
        return len(self.mins)

    def clear(self) -> None:
        self.mins = array("h")
        self.maxs = array("h")
        self._carry = b""

    def add(self, data: bytes | bytearray | memoryview) -> int:
        """Take s16le bytes; return how many buckets were completed."""
        buf = self._carry + bytes(data)
        step = self.bucket * 2
        full = len(buf) - (len(buf) % step)
        self._carry = buf[full:]
        if not full:
            return 0
        return self._take(buf[:full])

    def flush(self) -> int:
        """End of audio: the partial last bucket counts too."""
        buf = self._carry[: len(self._carry) - (len(self._carry) % 2)]
        self._carry = b""
        return self._take(buf) if buf else 0

    def _take(self, buf: bytes) -> int:
        samples = array("h")
        samples.frombytes(buf)
        if sys.byteorder == "big":
            samples.byteswap()
        bucket = self.bucket
        mins, maxs = self.mins, self.maxs
        count = 0
        for i in range(0, len(samples), bucket):
            seg = samples[i : i + bucket]
            mins.append(min(seg))
            maxs.append(max(seg))
            count += 1
        return count

    def columns(self, width: int) -> list[tuple[int, int]]:
        """(min, max) per display column when the envelope is drawn ``width`` columns wide.

        Fewer buckets than columns are stretched (each bucket covers several columns)."""
        n = len(self.mins)
        if n == 0 or width <= 0:
            return []
        if n <= width:
            mins, maxs = self.mins, self.maxs
            return [(mins[c * n // width], maxs[c * n // width]) for c in range(width)]
        out: list[tuple[int, int]] = []
        mins, maxs = self.mins, self.maxs
        for c in range(width):
            a = c * n // width
            b = max(a + 1, (c + 1) * n // width)
            out.append((min(mins[a:b]), max(maxs[a:b])))
        return out
