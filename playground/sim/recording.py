"""The simulator's own reader of a "playground-capture/1" file: what ``sim --replay`` serves.

The format is JSON lines (docs, and the project's writers): a header ``{"format", "route",
"request": {"method", "url", ...}}``, a ``{"response": {"status", "headers", "t"}}`` line, one
``{"t", "b64"}`` line per body read, and ``{"end": t, "status"}``. This reader is the
simulator's own on purpose: the simulator shares no code with the protocol layer, so a fault in
either is never hidden by the other. A cut last line (a crash mid-write) is ignored.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playground.sim import json_depth

__all__ = ["Recording", "RecordingError", "read_recording"]

FORMAT = "playground-capture/1"


class RecordingError(ValueError):
    """A file ``sim --replay`` cannot serve; the message names the file, never its content."""


@dataclass(slots=True)
class Recording:
    """A recorded answer: its status, headers and body reads with their arrival times."""

    route: str | None
    method: str | None
    path: str | None  # the request's path below /v1 ("/chat/completions"), if it is known
    status: int
    headers: list[tuple[str, str]]
    response_at: float  # seconds from the request to the headers
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    end_at: float | None = None

    @property
    def body(self) -> bytes:
        return b"".join(data for _, data in self.chunks)


def _number(value: Any, default: float = 0.0) -> float:
    return (
        float(value) if isinstance(value, int | float) and not isinstance(value, bool) else default
    )


def _path_of(url: Any) -> str | None:
    if not isinstance(url, str) or not url:
        return None
    path = urlsplit(url).path or "/"
    head, sep, rest = path.partition("/v1")
    return ("/" + rest.lstrip("/")) if sep and not head else path


def _pairs(headers: Any) -> list[tuple[str, str]]:
    if isinstance(headers, dict):
        return [(str(k), str(v)) for k, v in headers.items()]
    if isinstance(headers, list):
        return [(str(p[0]), str(p[1])) for p in headers if isinstance(p, list) and len(p) == 2]
    return []


def read_recording(path: str | Path) -> Recording:
    """Read ``path``; ``RecordingError`` when it is not a capture or holds no response."""
    name = Path(path).name
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise RecordingError(f"{name} cannot be read ({exc.strerror or 'I/O error'})") from None
    lines = data.split(b"\n")
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json_depth.loads(line)
        except ValueError:
            if not records:
                break  # not JSON from the start: said below, as any other non-capture
            if number >= len(lines) - 1:
                break  # the last line was being written when the recorder stopped
            raise RecordingError(f"{name}: line {number} is not JSON") from None
        if isinstance(record, dict):
            records.append(record)
    if not records or records[0].get("format") != FORMAT:
        raise RecordingError(f"{name} is not a {FORMAT} file")
    head = records[0]
    found = head.get("request")
    request: dict[str, Any] = found if isinstance(found, dict) else {}
    route = head.get("route")
    method = request.get("method")
    rec: Recording | None = None
    end_at: float | None = None
    chunks: list[tuple[float, bytes]] = []
    for record in records[1:]:
        if "response" in record and isinstance(record["response"], dict):
            response = record["response"]
            status = response.get("status")
            if not isinstance(status, int) or not 100 <= status <= 599:
                raise RecordingError(f"{name}: the response has no valid status")
            rec = Recording(
                route if isinstance(route, str) else None,
                method if isinstance(method, str) else None,
                _path_of(request.get("url")),
                status,
                _pairs(response.get("headers")),
                _number(response.get("t")),
            )
        elif "b64" in record:
            try:
                chunk = base64.b64decode(str(record["b64"]), validate=True)
            except (binascii.Error, ValueError):
                raise RecordingError(f"{name}: a body line is not base64") from None
            chunks.append((_number(record.get("t")), chunk))
        elif "end" in record:
            end_at = _number(record.get("end"), 0.0)
    if rec is None:
        raise RecordingError(f"{name} holds no response to replay (the request never got one)")
    rec.chunks = chunks
    rec.end_at = end_at
    return rec
