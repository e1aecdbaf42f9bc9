"""A run journaled as it streams, in the "playground-capture/1" format; and a reader for it.

The format (documented in the team's shared notes, read by ``playground.protocol.capture``):
a header line ``{"format", "route", "request": {method, url, headers (redacted), body},
"started_at"}``, then ``{"response": {status, headers, t}}``, one ``{"t", "b64"}`` line per byte
chunk, and a closing ``{"end": t, "status": ...}``. Lines are written and flushed as the bytes
arrive into ``<name>.part``; the end renames it into place (issue 5: a crash mid-stream loses
nothing already received, and a finished file appears atomically).
"""

from __future__ import annotations

import base64
import datetime
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from playground.transport.errors import TransportError
from playground.transport.redact import redact_headers, redact_pairs, scrub

__all__ = [
    "CAPTURE_FORMAT",
    "PART_SUFFIX",
    "CaptureJournal",
    "JournalError",
    "JournalRun",
    "body_value",
    "read_journal",
]

CAPTURE_FORMAT = "playground-capture/1"
FINAL_STATUSES = frozenset({"complete", "incomplete", "failed", "truncated", "cancelled"})
PART_SUFFIX = ".part"


class JournalError(ValueError):
    """A file that is not a readable capture; the message names the file, never its content."""


def body_value(body: bytes | None) -> Any:
    """The request body as the header stores it: parsed JSON when it is JSON, else text."""
    if body is None:
        return None
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


class CaptureJournal:
    """A RunSink that writes a capture file line by line while the run streams."""

    def __init__(
        self,
        path: Path,
        route: str,
        *,
        secrets: tuple[str, ...] = (),
        status_source: Callable[[], str | None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.part_path = self.path.with_name(self.path.name + PART_SUFFIX)
        self.route = route
        self.secrets = secrets  # scrubbed from the body text too, should a key have slipped in
        self.status_source = status_source
        self.started_at = _now_iso()
        self.http_status: int | None = None
        self.transport_error: TransportError | None = None
        self.end_t: float | None = None
        self.status: str | None = None
        self.bytes = 0
        self.request: dict[str, Any] | None = None
        self.write_error: str | None = None  # a full disk or a lost folder: the run goes on
        self._file: IO[str] | None = None

    # -- RunSink -----------------------------------------------------------------------------
    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.part_path, "w", encoding="utf-8")  # noqa: SIM115 (on_end closes)
        except OSError as exc:
            self._fail(exc)
        text_body = body_value(body)
        if isinstance(text_body, str):
            text_body = scrub(text_body, *self.secrets)
        elif self.secrets and text_body is not None:
            text_body = json.loads(scrub(json.dumps(text_body), *self.secrets))
        self.request = {
            "method": method,
            "url": scrub(url, *self.secrets),
            "headers": redact_headers(headers),  # already redacted by the transport: twice is safe
            "body": text_body,
        }
        self._line(
            {
                "format": CAPTURE_FORMAT,
                "route": self.route,
                "request": self.request,
                "started_at": self.started_at,
            }
        )

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.http_status = status
        pairs = [list(p) for p in redact_pairs(headers)]
        self._line({"response": {"status": status, "headers": pairs, "t": round(t, 6)}})

    def on_chunk(self, t: float, data: bytes) -> None:
        self.bytes += len(data)
        self._line({"t": round(t, 6), "b64": base64.b64encode(data).decode("ascii")})

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.transport_error = error

    def on_end(self, t: float) -> None:
        self.end_t = t
        self.status = self._final_status()
        end: dict[str, Any] = {"end": round(t, 6), "status": self.status}
        if self.transport_error is not None:
            end["transport_error"] = {
                "kind": self.transport_error.kind,
                "message": scrub(self.transport_error.message, *self.secrets),
            }
        self._line(end)
        self.close()

    # -- helpers -----------------------------------------------------------------------------
    def _final_status(self) -> str | None:
        if self.status_source is not None:
            try:
                status = self.status_source()
            except Exception:
                status = None
            if status in FINAL_STATUSES:  # "streaming" is no verdict: the decoder has not finished
                return status
        if self.transport_error is not None or (self.http_status or 0) >= 400:
            return "failed"
        return None  # the decoder's verdict is not known here; readers re-decode the bytes

    def _fail(self, exc: OSError) -> None:
        self.write_error = f"The run could not be saved ({exc.strerror or type(exc).__name__})."
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except OSError:
                pass

    def _line(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:
            self._file.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
            self._file.flush()  # journaled: what arrived is on disk even if the program dies next
        except OSError as exc:
            self._fail(exc)

    def close(self) -> None:
        """Finish the file: fsync, then rename the .part into place (atomic on one filesystem)."""
        if self._file is None:
            return
        file, self._file = self._file, None
        try:
            try:
                file.flush()
                os.fsync(file.fileno())
            finally:
                file.close()
            os.replace(self.part_path, self.path)
        except OSError as exc:
            self._fail(exc)


@dataclass
class JournalRun:
    """A capture file read back."""

    route: str
    request: dict[str, Any]
    started_at: str | None
    response_status: int | None = None
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    t_response: float | None = None
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    end: dict[str, Any] | None = None  # None when the run never ended (a crash)

    @property
    def body(self) -> bytes:
        return b"".join(data for _t, data in self.chunks)

    @property
    def content_type(self) -> str | None:
        for name, value in self.response_headers:
            if name.lower() == "content-type":
                return value
        return None


def read_journal(path: Path) -> JournalRun:
    """Read a capture file; a cut last line (a crash mid-write) is ignored, anything else raises."""
    try:
        lines = Path(path).read_bytes().split(b"\n")
    except OSError as exc:
        raise JournalError(
            f"{Path(path).name} cannot be read ({exc.strerror or 'I/O error'})"
        ) from None
    if lines and lines[-1] == b"":
        lines.pop()
    records: list[dict[str, Any]] = []
    for number, raw in enumerate(lines, 1):
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except ValueError:
            if number == len(lines) and number > 1:
                break  # the last line was being written when the program stopped
            raise JournalError(
                f"{Path(path).name}: line {number} is not a capture record"
            ) from None
        records.append(record)
    if not records or records[0].get("format") != CAPTURE_FORMAT:
        raise JournalError(f"{Path(path).name} is not a {CAPTURE_FORMAT} file")
    head = records[0]
    raw_request = head.get("request")
    request: dict[str, Any] = raw_request if isinstance(raw_request, dict) else {}
    run = JournalRun(str(head.get("route") or "auto"), request, head.get("started_at"))
    try:
        for record in records[1:]:
            if "response" in record:
                response = record["response"]
                run.response_status = int(response["status"])
                headers = response.get("headers") or []
                if isinstance(headers, dict):  # the protocol's CaptureWriter writes a mapping
                    headers = list(headers.items())
                run.response_headers = [(str(n), str(v)) for n, v in headers]
                run.t_response = float(response.get("t", 0.0))
            elif "b64" in record:
                run.chunks.append((float(record["t"]), base64.b64decode(record["b64"])))
            elif "end" in record:
                run.end = record
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(
            f"{Path(path).name}: a record is malformed ({type(exc).__name__})"
        ) from None
    return run
