"""The capture file "playground-capture/1": a JSON-lines journal of a request and its byte chunks.

Layout (one JSON object per line):
    {"format": "playground-capture/1", "route", "started_at",
     "request": {"method", "url", "headers", "body"}}
    {"response": {"status", "headers", "t"}}
    {"t": seconds_since_request, "b64": "..."}          one per byte chunk, as it arrived
    {"end": t, "status": "complete|incomplete|failed|truncated|cancelled"}

This module is the one place that knows the format: the record builders and ``encode_line``, used
by the one writer (``playground.runs.journal.CaptureJournal``, which journals each line as it
happens into a ``.part`` file and renames it into place at the end), and the one reader,
``read_capture``. The reader also accepts raw ``curl -N`` output (one chunk at t=0).
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from playground.protocol import safe_json
from playground.protocol.redaction import REDACTED, is_secret_name

__all__ = [
    "FORMAT",
    "PIECE",
    "Capture",
    "CaptureError",
    "capture_route",
    "chunk_record",
    "encode_line",
    "end_record",
    "header_record",
    "is_capture",
    "named_route",
    "read_capture",
    "redact_headers",
    "response_record",
]

FORMAT: Final = "playground-capture/1"
PIECE: Final = 65536  # bytes of a chunk read back at most (a socket's read under load)


class CaptureError(ValueError):
    """A capture that ``read_capture(strict=True)`` refuses; names the file, never its content."""


def redact_headers(headers: Any) -> dict[str, str]:
    """A copy of ``headers`` (mapping or pairs), every credential header hidden (the rule of
    ``playground.protocol.redaction``: Authorization, x-api-key, X-Auth-Token, cookies...)."""
    if headers is None:
        return {}
    items: Any = headers.items() if hasattr(headers, "items") else headers
    out: dict[str, str] = {}
    for key, value in items:
        name = str(key)
        out[name] = REDACTED if is_secret_name(name) else str(value)
    return out


# ---- the line format (written by the app's one writer, runs.journal.CaptureJournal) ----------
def encode_line(record: dict[str, Any]) -> bytes:
    """One record as a capture line: compact UTF-8 JSON and a newline."""
    try:
        return orjson.dumps(record, default=str) + b"\n"
    except orjson.JSONEncodeError:
        # orjson refuses integers beyond 64 bits (a request body may hold one): the stdlib
        # writes them, in the same compact UTF-8 form.
        text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
        return text.encode("utf-8") + b"\n"


def header_record(route: str, request: dict[str, Any], started_at: str) -> dict[str, Any]:
    """The first line: what was asked (``request`` already redacted by the caller)."""
    return {"format": FORMAT, "route": route, "request": request, "started_at": started_at}


def response_record(status: int, headers: Any, t: float) -> dict[str, Any]:
    """The response line: status, headers (a mapping or ``[name, value]`` pairs), arrival time."""
    return {"response": {"status": status, "headers": headers, "t": t}}


def chunk_record(t: float, data: bytes) -> dict[str, Any]:
    """One byte chunk as it arrived, ``t`` seconds after the request."""
    return {"t": t, "b64": base64.b64encode(data).decode("ascii")}


def end_record(t: float, status: str | None, **extra: Any) -> dict[str, Any]:
    """The closing line; its absence means the run never ended (a crash)."""
    return {"end": t, "status": status, **extra}


# ---- the reader -------------------------------------------------------------------------------
@dataclass(slots=True)
class Capture:
    """A read capture: what was asked, what came back, and every chunk with its arrival time."""

    route: str | None
    request: dict[str, Any] | None
    response_status: int | None
    response_headers: dict[str, str]
    chunks: list[tuple[float, bytes]]
    started_at: str | None = None
    end_t: float | None = None
    end_status: str | None = None
    raw: bool = False  # True when the file was plain SSE (curl -N), not the capture format
    problems: list[str] = field(default_factory=list)  # lines that could not be read
    # The response headers in their order, duplicates kept (``response_headers`` folds them).
    header_pairs: list[tuple[str, str]] = field(default_factory=list)
    response_at: float | None = None  # the response line's "t": when the headers arrived
    end: dict[str, Any] | None = None  # the closing record as written; None: the run never ended

    @property
    def body(self) -> bytes:
        return b"".join(chunk for _, chunk in self.chunks)

    def header(self, name: str) -> str | None:
        """A response header, looked up case-insensitively (the first one when repeated)."""
        wanted = name.lower()
        pairs = self.header_pairs or list(self.response_headers.items())
        for key, value in pairs:
            if key.lower() == wanted:
                return value
        return None

    @property
    def content_type(self) -> str | None:
        return self.header("content-type")


def is_capture(data: bytes) -> bool:
    """Whether ``data`` starts with the capture format's header line."""
    head = data[:4096].lstrip()
    if not head.startswith(b"{"):
        return False
    line = head.split(b"\n", 1)[0]
    try:
        first = safe_json.loads(line)
    except ValueError:
        return b'"format"' in line and FORMAT.encode() in line
    return isinstance(first, dict) and first.get("format") == FORMAT


def _pieces(t: float, data: bytes) -> list[tuple[float, bytes]]:
    """``data`` arrived at ``t``, in pieces of at most ``PIECE`` bytes, as a socket reads it.

    A reader is handed one read at a time, and the decoder returns the items each read completed:
    a file's 8 MB of ``data:x`` events as one chunk made a million items at once (230 MB, which
    the timeline folds only per read, protocol/timeline_items.py). Each piece ends after a
    blank line where one falls in it, so its events share the piece (sse.SSEEvent) instead of
    each being copied out of the bytes of two pieces."""
    if len(data) <= PIECE:
        return [(t, data)] if data else []
    out: list[tuple[float, bytes]] = []
    at = 0
    while at < len(data):
        stop = at + PIECE
        if stop < len(data):
            blank = data.rfind(b"\n\n", at, stop)
            stop = blank + 2 if blank >= 0 else stop
        out.append((t, data[at:stop]))
        at = stop
    return out


def _read_pieces(file: io.BufferedReader, head: bytes) -> list[tuple[float, bytes]]:
    """``_pieces(0.0, head + the rest of file)``, read a piece at a time: the file's bytes are
    never in memory twice (whole, and cut), as 8 MB of one endless line were while it was cut
    (``playground bench --only hostile``)."""
    out: list[tuple[float, bytes]] = []
    held = head
    while True:
        wanted = PIECE - len(held)
        buffer = held + file.read(wanted) if wanted > 0 else held
        if not buffer:
            return out
        stop = len(buffer)
        if stop == PIECE and file.peek(1):  # more after this piece: it ends after a blank line
            blank = buffer.rfind(b"\n\n")
            stop = blank + 2 if blank >= 0 else stop
        out.append((0.0, buffer[:stop]))
        held = buffer[stop:]
        if stop < PIECE and not held:
            return out


def _set_headers(capture: Capture, pairs: list[tuple[str, str]]) -> None:
    capture.header_pairs = pairs
    capture.response_headers = dict(pairs)


def _set_end(capture: Capture, obj: dict[str, Any]) -> None:
    end = obj.get("end")
    capture.end_t = float(end) if isinstance(end, int | float) else None
    status = obj.get("status")
    capture.end_status = status if isinstance(status, str) else None
    capture.end = obj


def _read_lenient(capture: Capture, number: int, obj: dict[str, Any]) -> None:
    """Take one record; whatever cannot be read is listed in ``problems``."""
    if "b64" in obj:
        try:
            chunk = base64.b64decode(str(obj["b64"]), validate=True)
        except (binascii.Error, ValueError):
            capture.problems.append(f"line {number}: bad base64")
            return
        t = obj.get("t")
        capture.chunks.extend(_pieces(float(t) if isinstance(t, int | float) else 0.0, chunk))
    elif "format" in obj:
        route = obj.get("route")
        capture.route = route if isinstance(route, str) else None
        request = obj.get("request")
        capture.request = request if isinstance(request, dict) else None
        started = obj.get("started_at")
        capture.started_at = str(started) if started is not None else None
    elif "response" in obj:
        response = obj["response"] if isinstance(obj["response"], dict) else {}
        status = response.get("status")
        capture.response_status = status if isinstance(status, int) else None
        headers = response.get("headers")
        if isinstance(headers, dict):
            _set_headers(capture, [(str(k), str(v)) for k, v in headers.items()])
        elif isinstance(headers, list):
            _set_headers(
                capture,
                [
                    (str(pair[0]), str(pair[1]))
                    for pair in headers
                    if isinstance(pair, list | tuple) and len(pair) == 2
                ],
            )
        t = response.get("t")
        capture.response_at = float(t) if isinstance(t, int | float) else None
    elif "end" in obj:
        _set_end(capture, obj)
    else:
        capture.problems.append(f"line {number}: unknown record")


def _read_strict(capture: Capture, obj: dict[str, Any]) -> None:
    """Take one record after the header; a malformed one raises (KeyError/TypeError/ValueError)."""
    if "response" in obj:
        response = obj["response"]
        capture.response_status = int(response["status"])
        headers = response.get("headers") or []
        if isinstance(headers, dict):  # a mapping (older captures) or the journal's pairs
            headers = list(headers.items())
        _set_headers(capture, [(str(n), str(v)) for n, v in headers])
        capture.response_at = float(response.get("t", 0.0))
    elif "b64" in obj:
        capture.chunks.extend(_pieces(float(obj["t"]), base64.b64decode(obj["b64"])))
    elif "end" in obj:
        _set_end(capture, obj)
    # anything else (a newer record kind) is skipped: the strict reader only refuses damage


def _parse_strict(data: bytes, name: str) -> list[dict[str, Any]]:
    """Every line as a record; a cut last line (a crash mid-write) is dropped, else raises."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        try:
            record = safe_json.loads(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            if number == len(lines) and number > 1:
                break  # the last line was being written when the program stopped
            raise CaptureError(f"{name}: line {number} is not a capture record")
        records.append(record)
    if not records or records[0].get("format") != FORMAT:
        raise CaptureError(f"{name} is not a {FORMAT} file")
    return records


def read_capture(source: str | os.PathLike[str] | bytes, *, strict: bool = False) -> Capture:
    """Read a capture file (path or bytes); raw SSE (``curl -N`` output) becomes chunks at t=0.

    Lenient by default: never raises on content, unreadable lines are listed in ``problems``.
    ``strict=True`` (the history and bug reports) raises ``CaptureError`` on anything but a cut
    last line, and on a file that is not a capture. (A missing file raises ``OSError`` from
    ``open`` either way: the caller decides how to report that.)
    """
    if isinstance(source, bytes):
        data = source
    else:
        with open(source, "rb") as file:
            # What decides the format is the first 4 KiB (is_capture); raw SSE is read in pieces.
            head = file.read(4096)
            if not strict and not is_capture(head):
                return Capture(None, None, None, {}, _read_pieces(file, head), raw=True)
            data = head + file.read()
    if strict:
        name = "capture" if isinstance(source, bytes) else Path(source).name
        records = _parse_strict(data, name)
        capture = Capture(None, None, None, {}, [])
        _read_lenient(capture, 1, records[0])
        try:
            for record in records[1:]:
                _read_strict(capture, record)
        except (KeyError, TypeError, ValueError) as exc:
            raise CaptureError(f"{name}: a record is malformed ({type(exc).__name__})") from None
        return capture
    if not is_capture(data):
        return Capture(None, None, None, {}, _pieces(0.0, data), raw=True)
    capture = Capture(None, None, None, {}, [])
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = safe_json.loads(line)
        except ValueError:
            capture.problems.append(f"line {number}: not JSON")
            continue
        if not isinstance(obj, dict):
            capture.problems.append(f"line {number}: not an object")
            continue
        _read_lenient(capture, number, obj)
    return capture


def named_route(capture: Capture) -> str | None:
    """The route a capture names, else the one its request's method and URL are (the route
    registry's paths: a proxy capture of a path it did not know says ``other``); else None."""
    from playground.protocol.routes import ROUTE_NAMES, route_for_url

    if capture.route in ROUTE_NAMES:
        return capture.route
    request = capture.request or {}
    url, method = request.get("url"), request.get("method")
    if isinstance(url, str) and isinstance(method, str):
        return route_for_url(method, url)
    return None


def capture_route(capture: Capture) -> str | None:
    """The route of a capture: ``named_route``, else its first decisive events (the decoder's
    recognition)."""
    from playground.protocol.stream import StreamDecoder  # the decoder loads with a stream

    named = named_route(capture)
    if named is not None:
        return named

    decoder = StreamDecoder("auto")
    for t, data in capture.chunks[:50]:
        decoder.feed(data, t)
        if decoder.route != "auto":
            return decoder.route
    return None
