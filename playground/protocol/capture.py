"""The capture file "playground-capture/1": a JSON-lines journal of a request and its byte chunks.

Layout (one JSON object per line):
    {"format": "playground-capture/1", "route", "started_at",
     "request": {"method", "url", "headers", "body"}}
    {"response": {"status", "headers", "t"}}
    {"t": seconds_since_request, "b64": "..."}          one per byte chunk, as it arrived
    {"end": t, "status": "complete|incomplete|failed|truncated|cancelled"}

The writer journals each line as it happens (flushed, so a crash keeps what came) into a temp file
beside the target, and ``finalize()`` fsyncs it and renames it into place (atomic on POSIX and
Windows). The reader also accepts raw ``curl -N`` output (one chunk at t=0).
"""

from __future__ import annotations

import base64
import binascii
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import orjson

__all__ = [
    "FORMAT",
    "Capture",
    "CaptureWriter",
    "is_capture",
    "read_capture",
    "redact_headers",
]

FORMAT: Final = "playground-capture/1"
REDACTED: Final = "[redacted]"
# Header names whose values are secrets (compared case-insensitively).
_SECRET_HEADERS: Final = frozenset(
    {"authorization", "x-api-key", "api-key", "cookie", "set-cookie", "proxy-authorization"}
)


def redact_headers(headers: Any) -> dict[str, str]:
    """A copy of ``headers`` (mapping or pairs), Authorization/x-api-key/api-key/cookie hidden."""
    if headers is None:
        return {}
    items: Any = headers.items() if hasattr(headers, "items") else headers
    out: dict[str, str] = {}
    for key, value in items:
        name = str(key)
        out[name] = REDACTED if name.lower() in _SECRET_HEADERS else str(value)
    return out


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

    @property
    def body(self) -> bytes:
        return b"".join(chunk for _, chunk in self.chunks)

    def header(self, name: str) -> str | None:
        """A response header, looked up case-insensitively."""
        wanted = name.lower()
        for key, value in self.response_headers.items():
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
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        return b'"format"' in line and FORMAT.encode() in line
    return isinstance(first, dict) and first.get("format") == FORMAT


def read_capture(source: str | os.PathLike[str] | bytes) -> Capture:
    """Read a capture file (path or bytes); raw SSE (``curl -N`` output) becomes one chunk at t=0.

    Never raises on content: unreadable lines are listed in ``problems``. (A missing file still
    raises ``OSError`` from ``open``: the caller decides how to report that.)
    """
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    if not is_capture(data):
        return Capture(None, None, None, {}, [(0.0, data)] if data else [], raw=True)
    capture = Capture(None, None, None, {}, [])
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            capture.problems.append(f"line {number}: not JSON")
            continue
        if not isinstance(obj, dict):
            capture.problems.append(f"line {number}: not an object")
            continue
        if "b64" in obj:
            try:
                chunk = base64.b64decode(str(obj["b64"]), validate=True)
            except (binascii.Error, ValueError):
                capture.problems.append(f"line {number}: bad base64")
                continue
            t = obj.get("t")
            capture.chunks.append((float(t) if isinstance(t, int | float) else 0.0, chunk))
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
                capture.response_headers = {str(k): str(v) for k, v in headers.items()}
            elif isinstance(headers, list):
                capture.response_headers = {
                    str(pair[0]): str(pair[1])
                    for pair in headers
                    if isinstance(pair, list | tuple) and len(pair) == 2
                }
        elif "end" in obj:
            end = obj.get("end")
            capture.end_t = float(end) if isinstance(end, int | float) else None
            status = obj.get("status")
            capture.end_status = status if isinstance(status, str) else None
        else:
            capture.problems.append(f"line {number}: unknown record")
    return capture


class CaptureWriter:
    """Journal one run to ``path``: header now, a line per chunk as it arrives, atomic finalize.

    Usage::

        w = CaptureWriter(path, route="chat", method="POST", url=url, headers=h, body=b)
        w.response(200, headers, t)
        w.chunk(t, data)            # for every chunk
        w.finalize(t_end, "complete")
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        route: str,
        method: str,
        url: str,
        headers: Any = None,
        body: Any = None,
        started_at: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".part", dir=self.path.parent
        )
        self.temp_path = Path(tmp)
        self._file: IO[bytes] | None = os.fdopen(fd, "wb")
        if isinstance(body, bytes | bytearray):
            try:
                body_value: Any = orjson.loads(body)
            except orjson.JSONDecodeError:
                body_value = {"b64": base64.b64encode(bytes(body)).decode("ascii")}
        else:
            body_value = body
        self._line(
            {
                "format": FORMAT,
                "route": route,
                "request": {
                    "method": method,
                    "url": url,
                    "headers": redact_headers(headers),
                    "body": body_value,
                },
                "started_at": started_at or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
        )

    def _line(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            raise ValueError("capture already finalized")
        self._file.write(orjson.dumps(obj, default=str) + b"\n")
        self._file.flush()  # journaled: every line reaches the OS as it happens

    def response(self, status: int, headers: Any, t: float) -> None:
        self._line({"response": {"status": status, "headers": redact_headers(headers), "t": t}})

    def chunk(self, t: float, data: bytes) -> None:
        self._line({"t": t, "b64": base64.b64encode(data).decode("ascii")})

    def finalize(self, t: float, status: str) -> Path:
        """Write the closing line, fsync, and rename the journal into place atomically."""
        self._line({"end": t, "status": status})
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None
        os.replace(self.temp_path, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the journal (nothing replaces the target)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        try:
            self.temp_path.unlink()
        except OSError:
            pass

    @property
    def closed(self) -> bool:
        return self._file is None
