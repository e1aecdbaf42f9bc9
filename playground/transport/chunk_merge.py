"""Merges a chunked HTTP/1.1 response body's chunks into one chunk per socket read, before h11.

Why: a streaming gateway flushes one HTTP chunk per SSE event, and h11 (pure Python, under
httpx) spends about 8 us of CPU on each chunk: it builds a ``Data`` event, validates the chunk
header with a regular expression and cuts its receive buffer once per chunk. At full loopback
speed that was as much CPU as everything the window does with the event, all of it holding the
GIL the UI thread needs (measured on a 2-core Xeon: a bare httpx client read 100,000 one-event
chunks in 1.0-1.5 s of CPU). The run never sees HTTP chunk boundaries anyway (the reader hands
on one piece per socket read), so this merger takes the chunk framing off each read itself and
gives h11 the read's payload as one chunk: h11's per-chunk work happens once per read.

The bytes h11 is handed are an exact re-framing: the response head passes through unchanged,
the payload bytes are the same bytes in the same order, the terminating zero chunk and its
trailers pass through unchanged, and anything this merger does not understand or finds
malformed passes to h11 as received, placed so that h11 rejects it as it would have rejected
the original (the reader then reports the same broken stream). Only ``Transfer-Encoding:
chunked`` bodies of HTTP/1.1 responses are merged; every other body passes through untouched.
"""

from __future__ import annotations

import re
from itertools import repeat

__all__ = ["ChunkMerger"]

# h11's own chunk header grammar (h11/_abnf.py: chunk-size, optional chunk-ext, OWS, CRLF), so
# a header is accepted here exactly when h11 would accept it.
_CHUNK_HEADER = re.compile(rb"([0-9A-Fa-f]{1,20})(?:;.*)?[ \t]*\r\n")
# The end of a response head as h11 finds it (``maybe_extract_lines``: a blank line, CRLF or LF).
_HEAD_END = re.compile(rb"\n\r?\n")
_LINE_BREAK = re.compile(rb"\r?\n")
# A head or a chunk header longer than this is not ours to judge: h11 gets the bytes as they are
# (its own limit for an incomplete event is 16 KiB).
_MAX_HEAD = 64 * 1024
_MAX_HEADER_LINE = 4096
# Bodies a response never has, whatever its headers say (RFC 9112 section 6.3).
_NO_BODY = frozenset({204, 304})

_HEX_DIGITS = b"0123456789abcdefABCDEF"
_HEAD, _SIZE, _DATA, _FOOTER, _TRAILER, _LENGTH, _PASS = range(7)


class ChunkMerger:
    """Feed it each socket read of one HTTP/1.1 connection in order; it returns what h11 reads.

    A read that held only framing (part of a chunk header, a chunk's CRLF) gives ``b""``: the
    caller must then read again, never hand h11 an empty read (h11 takes that for the end of
    the connection). Set ``bodiless`` while the response being read answers a HEAD request
    (its head may announce a body that never comes).
    """

    def __init__(self) -> None:
        self.bodiless = False
        self._state = _HEAD
        self._head = bytearray()  # the response head so far (passed on as it arrives)
        self._line = b""  # a chunk header or trailer line split across reads
        self._left = 0  # payload bytes left in the current chunk (or Content-Length body)
        self._footer = 0  # bytes of the chunk's closing CRLF already matched
        self._open = False  # the last merged chunk handed to h11 still awaits its CRLF

    @property
    def merging(self) -> bool:
        """True once a chunked body is being merged (and until it ends or breaks)."""
        return self._state in (_SIZE, _DATA, _FOOTER)

    def feed(self, data: bytes) -> bytes:
        state = self._state
        if not data or state == _PASS:
            return data
        if state == _HEAD:
            return self._feed_head(data)
        if state == _LENGTH:
            return self._feed_length(data)
        if state == _TRAILER:
            return self._feed_trailer(data)
        return self._feed_body(data)

    # The response head, and what passes as it is --------------------------------------------

    def _feed_head(self, data: bytes) -> bytes:
        start = len(self._head)
        self._head += data
        # A head's blank line may straddle reads: search from just before the new bytes.
        found = _HEAD_END.search(self._head, max(0, start - 2))
        if found is None:
            if len(self._head) > _MAX_HEAD:
                self._pass()
            return data
        end = found.end()
        head = bytes(self._head[:end])
        rest = bytes(self._head[end:])
        self._head.clear()
        taken = end - start  # how much of ``data`` belongs to the head
        framing, length = _body_of(head, self.bodiless)
        if framing == "chunked":
            self._state = _SIZE
        elif framing == "length":
            self._state = _LENGTH
            self._left = length
        elif framing != "none":
            self._pass()  # read until the connection closes, or a tunnel: not ours to follow
            return data
        # "none": an informational response, or one without a body: the next head follows.
        return data[:taken] + self.feed(rest) if rest else data

    def _feed_length(self, data: bytes) -> bytes:
        if len(data) < self._left:
            self._left -= len(data)
            return data
        cut, self._left = self._left, 0
        self._state = _HEAD
        return data[:cut] + self.feed(data[cut:]) if cut < len(data) else data

    def _feed_trailer(self, data: bytes) -> bytes:
        """After the last chunk its trailer lines pass as they are, up to the blank line that
        ends the response (h11 reads them); a kept-alive connection's next head follows."""
        pos = 0
        while True:
            cut = data.find(b"\n", pos)
            if cut < 0:
                self._line += data[pos:]
                if len(self._line) > _MAX_HEAD:
                    self._pass()
                return data
            line = self._line + data[pos : cut + 1]
            self._line = b""
            pos = cut + 1
            if line in (b"\r\n", b"\n"):
                self._state = _HEAD
                return data[:pos] + self.feed(data[pos:]) if pos < len(data) else data

    def _pass(self) -> None:
        self._state = _PASS
        self._head.clear()
        self._line = b""

    # The chunked body ----------------------------------------------------------------------

    def _feed_body(self, data: bytes) -> bytes:
        payload: list[bytes] = []
        pos = 0
        size = len(data)
        while pos < size:
            state = self._state
            if state == _SIZE and not self._line:
                pos = _whole_chunks(data, pos, payload)
                if pos >= size:
                    break
            if state == _DATA:
                end = pos + self._left
                if end > size:
                    end = size
                payload.append(data[pos:end])
                self._left -= end - pos
                pos = end
                if self._left == 0:
                    self._state = _FOOTER
                    self._footer = 0
            elif state == _FOOTER:
                want = b"\r\n"[self._footer :]
                got = data[pos : pos + len(want)]
                if not want.startswith(got):
                    # h11 still waits for the open merged chunk's CRLF: handing it these bytes
                    # instead gives its own "malformed chunk footer", as the original would;
                    # with the part of the footer matched before them (a CR at a read's end).
                    self._state = _PASS
                    return self._out(payload) + b"\r\n"[: self._footer] + data[pos:]
                self._footer += len(got)
                pos += len(got)
                if self._footer == 2:
                    self._state = _SIZE
            else:  # _SIZE
                cut = data.find(b"\n", pos)
                if cut < 0:
                    self._line += data[pos:]
                    if len(self._line) > _MAX_HEADER_LINE:
                        return self._final(payload, self._line)  # h11 applies its own limit
                    break
                line = self._line + data[pos : cut + 1]
                self._line = b""
                pos = cut + 1
                matched = _CHUNK_HEADER.fullmatch(line)
                if matched is None:
                    return self._final(payload, line + data[pos:])  # h11 sees the bad header
                self._left = int(matched.group(1), 16)
                if self._left == 0:
                    # The last chunk: it and its trailers go to h11 as received.
                    out = self._final(payload, line)
                    self._state = _TRAILER
                    return out + self._feed_trailer(data[pos:]) if pos < size else out
                self._state = _DATA
        return self._out(payload)

    def _out(self, payload: list[bytes]) -> bytes:
        """This read's payload as one chunk, left open: its CRLF is held back until the source's
        own footer has been seen, so a bad footer still meets h11 where it expects a footer."""
        if not payload:
            return b""
        merged = payload[0] if len(payload) == 1 else b"".join(payload)
        close = b"\r\n" if self._open else b""
        self._open = True
        return b"%b%x\r\n%b" % (close, len(merged), merged)

    def _final(self, payload: list[bytes], tail: bytes) -> bytes:
        """The last merged bytes, closed, then ``tail`` exactly as received: h11 reads the rest."""
        self._state = _PASS
        self._line = b""
        out = self._out(payload)
        if self._open:
            out += b"\r\n"
            self._open = False
        return out + tail


def _whole_chunks(data: bytes, pos: int, payload: list[bytes]) -> int:
    """Take the chunks that lie whole in ``data`` from ``pos`` (a chunk header's start), each a
    bare hex size, CRLF, data, CRLF: what servers send. Returns where the first other one starts
    (a chunk split by the read's end, an extension, padding, a zero chunk or a malformed one),
    which the state machine then reads with h11's exact grammar.

    A read of one-event chunks is cut at every CRLF at once: the pieces alternate size, data,
    size, data (an event's data holds no CRLF, SSE being LF-only almost everywhere), and every
    test runs over all of them in C: the sizes are bare hex digits, each is its data's length.
    The chunks before the first that fails are taken; from there, one at a time. Per chunk that
    is a quarter of the one-at-a-time loop (which alone cost about a microsecond a chunk)."""
    rest = data if pos == 0 else data[pos:]
    parts = rest.split(b"\r\n")
    whole = (len(parts) - 1) // 2  # size, data pairs each followed by a CRLF
    if not whole:
        return _one_by_one(data, pos, payload)
    sizes = parts[0 : 2 * whole : 2]
    bodies = parts[1 : 2 * whole : 2]
    if not all(sizes) or max(map(len, sizes)) > 16 or b"".join(sizes).translate(None, _HEX_DIGITS):
        return _one_by_one(data, pos, payload)  # an extension, padding, a long size: h11's way
    values = list(map(int, sizes, repeat(16)))
    lengths = list(map(len, bodies))
    if values != lengths or 0 in values:
        # Whole up to the first that is not: its data held a CRLF, or it is the last (zero).
        whole = next(i for i, (v, n) in enumerate(zip(values, lengths)) if v != n or v == 0)
        del sizes[whole:], bodies[whole:]
    # Each pair taken is a whole chunk: it starts where a chunk starts, and its data, as long as
    # its size says, is followed by a CRLF (a CRLF inside the data makes the piece shorter).
    payload.extend(bodies)
    pos += sum(map(len, sizes)) + sum(lengths[:whole]) + 4 * whole
    return _one_by_one(data, pos, payload)


def _one_by_one(data: bytes, pos: int, payload: list[bytes]) -> int:
    """``_whole_chunks``, a chunk at a time (where the cut at every CRLF stopped)."""
    find = data.find
    append = payload.append
    size = len(data)
    while True:
        cut = find(b"\r\n", pos, pos + 18)
        if cut <= pos or data[pos:cut].translate(None, _HEX_DIGITS):
            return pos  # no bare size within reach, or not hex digits only
        start = cut + 2
        end = start + int(data[pos:cut], 16)
        if end == start or end + 2 > size or data[end : end + 2] != b"\r\n":
            return pos
        append(data[start:end])
        pos = end + 2


def _body_of(head: bytes, bodiless: bool) -> tuple[str, int]:
    """How h11 frames the body after ``head`` (RFC 9112 section 6.3): ("chunked", 0),
    ("length", n), ("none", 0) for a response without a body (an informational one, 204, 304,
    the answer to HEAD) or ("other", 0): read until close, a tunnel, or a head not ours to judge.
    """
    other = ("other", 0)
    lines = _LINE_BREAK.split(head)
    status_line = lines[0]
    if not status_line.startswith(b"HTTP/1.1 ") or len(status_line) < 12:
        return other
    code = status_line[9:12]
    if not code.isdigit():
        return other
    status = int(code)
    if status == 101:
        return other  # the connection now speaks another protocol
    if 100 <= status < 200 or status in _NO_BODY or bodiless:
        return ("none", 0)
    codings: list[bytes] = []
    lengths: set[bytes] = set()
    for line in lines[1:]:
        if not line:
            continue
        if line[:1] in (b" ", b"\t"):
            return other  # a folded header: h11's to judge
        name, colon, value = line.partition(b":")
        if not colon:
            return other
        name = name.strip().lower()
        if name == b"transfer-encoding":
            codings.extend(part.strip().lower() for part in value.split(b","))
        elif name == b"content-length":
            lengths.update(part.strip() for part in value.split(b","))
    if codings:
        return ("chunked", 0) if codings == [b"chunked"] else other
    if len(lengths) == 1:
        (length,) = lengths
        if length.isdigit() and len(length) <= 18:
            return ("length", int(length)) if int(length) else ("none", 0)
    return other
