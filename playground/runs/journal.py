"""A run journaled as it streams, in the "playground-capture/1" format; and a strict reader for it.

The format itself (records, line encoding, the reader) lives in ``playground.protocol.capture``;
this module is the app's RunSink on top of it: keys scrubbed from what it writes, the decoder's
verdict as the final status, a full disk reported instead of raised. Lines are written and flushed
as the bytes arrive into ``<name>.part``; the end renames it into place (a crash
mid-stream loses nothing already written, and a finished file appears atomically). Given a
``FileWriter``, the lines, the end's fsync and the rename run on its thread, in order, not on the
caller's (runs/writer.py).
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from playground.protocol import safe_json
from playground.protocol.capture import (
    FORMAT,
    Capture,
    CaptureError,
    chunk_record,
    encode_line,
    end_record,
    header_record,
    read_capture,
    response_record,
)
from playground.protocol.redaction import (
    StreamScrubber,
    redact_headers,
    redact_pairs,
    redact_url,
    scrub,
)
from playground.transport.errors import TransportError

if TYPE_CHECKING:
    from playground.runs.writer import FileWriter

__all__ = [
    "CAPTURE_FORMAT",
    "PART_SUFFIX",
    "CaptureJournal",
    "JournalError",
    "JournalRun",
    "body_value",
    "read_journal",
]

CAPTURE_FORMAT = FORMAT
FINAL_STATUSES = frozenset({"complete", "incomplete", "failed", "truncated", "cancelled"})
PART_SUFFIX = ".part"

# A capture file read back: the protocol's one reader type (the old name kept for importers).
JournalRun = Capture


class JournalError(CaptureError):
    """A file that is not a readable capture; the message names the file, never its content."""


def body_value(body: bytes | None) -> Any:
    """The request body as the header stores it: parsed JSON when it is JSON, else text."""
    if body is None:
        return None
    text = body.decode("utf-8", "replace")
    return safe_json.loads_or(text, text)


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
        writer: FileWriter | None = None,
    ) -> None:
        self.path = Path(path)
        self.part_path = self.path.with_name(self.path.name + PART_SUFFIX)
        self.route = route
        self.secrets = secrets  # scrubbed from the body text too, should a key have slipped in
        self._scrubber = StreamScrubber(secrets)  # and from the response bytes, across reads
        self._t_last = 0.0
        self.status_source = status_source
        self.started_at = _now_iso()
        self.http_status: int | None = None
        self.transport_error: TransportError | None = None
        self.end_t: float | None = None
        self.status: str | None = None
        self.bytes = 0
        self.request: dict[str, Any] | None = None
        self.write_error: str | None = None  # a full disk or a lost folder: the run goes on
        self._file: IO[bytes] | None = None
        self.writer = writer  # None: the end's fsync and rename happen in close() itself

    # -- RunSink -----------------------------------------------------------------------------
    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.part_path, "wb")  # noqa: SIM115 (on_end closes)
        except OSError as exc:
            self._fail(exc)
        text_body = body_value(body)
        if isinstance(text_body, str):
            text_body = scrub(text_body, *self.secrets)
        elif self.secrets and text_body is not None:
            text_body = safe_json.loads(scrub(json.dumps(text_body), *self.secrets))
        self.request = {
            "method": method,
            "url": redact_url(scrub(url, *self.secrets)),
            # Already redacted by the transport: twice is safe, and a key in any header is caught.
            "headers": redact_headers(headers, self.secrets),
            "body": text_body,
        }
        self._line(header_record(self.route, self.request, self.started_at))

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.http_status = status
        pairs = [list(p) for p in redact_pairs(headers, self.secrets)]
        self._line(response_record(status, pairs, round(t, 6)))

    def on_chunk(self, t: float, data: bytes) -> None:
        self._t_last = t
        data = self._scrubber.feed(data)
        if data:
            self._chunk(t, data)

    def _chunk(self, t: float, data: bytes) -> None:
        self.bytes += len(data)
        t = round(t, 6)
        self._line(lambda: chunk_record(t, data))  # base64 on the writer's thread too

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.transport_error = error

    def on_end(self, t: float) -> None:
        held = self._scrubber.flush()  # a key's possible start that never finished: it is data
        if held:
            self._chunk(self._t_last, held)
        self.end_t = t
        self.status = self._final_status()
        extra: dict[str, Any] = {}
        if self.transport_error is not None:
            extra["transport_error"] = {
                "kind": self.transport_error.kind,
                "message": scrub(self.transport_error.message, *self.secrets),
            }
        self._line(end_record(round(t, 6), self.status, **extra))
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

    def _fail(self, exc: OSError, file: IO[bytes] | None = None) -> None:
        """Say the failure, and close ``file`` (by default the open one): the run goes on."""
        self.write_error = f"The run could not be saved ({exc.strerror or type(exc).__name__})."
        file = file if file is not None else self._file
        if file is self._file:
            self._file = None
        if file is not None:
            try:
                file.close()
            except OSError:
                pass

    def _line(self, record: dict[str, Any] | Callable[[], dict[str, Any]]) -> None:
        """Write one record (or what ``record()`` builds, where the line is written)."""
        file = self._file
        if file is None:
            return
        if self.writer is None:
            self._write(file, record)
        else:
            # Encoded and written on the writer's thread, in order with the end's fsync and
            # rename: a chat run's chunk lines (base64, JSON, a write and a flush each) cost the
            # UI thread as much as putting its text on screen (profiled at full loopback speed,
            # about 8% of the window's rate). What arrived is on disk a job later.
            self.writer.submit(lambda: self._write(file, record))

    def _write(
        self, file: IO[bytes], record: dict[str, Any] | Callable[[], dict[str, Any]]
    ) -> None:
        if file.closed:
            return  # an earlier line failed: the file was given up
        try:
            file.write(encode_line(record if isinstance(record, dict) else record()))
            file.flush()  # journaled: what arrived is on disk even if the program dies next
        except OSError as exc:
            self._fail(exc, file)

    def close(self) -> None:
        """Finish the file: fsync, then rename the .part into place (atomic on one filesystem).

        With a writer, this is queued on its thread; ``write_error`` says a failure when it ran.
        """
        if self._file is None:
            return
        file, self._file = self._file, None
        if self.writer is None:
            self._finish(file)
        else:
            self.writer.submit(lambda: self._finish(file))

    def _finish(self, file: IO[bytes]) -> None:
        if file.closed:
            return  # a line failed (write_error says so): the .part stays as it is
        try:
            try:
                file.flush()
                os.fsync(file.fileno())
            finally:
                file.close()
            os.replace(self.part_path, self.path)
        except OSError as exc:
            self._fail(exc, file)


def read_journal(path: Path) -> Capture:
    """Read a capture file strictly: a cut last line (a crash mid-write) is ignored, else raises.

    ``JournalError`` names the file and what is wrong, never its content.
    """
    try:
        return read_capture(Path(path), strict=True)
    except OSError as exc:
        raise JournalError(
            f"{Path(path).name} cannot be read ({exc.strerror or 'I/O error'})"
        ) from None
    except CaptureError as exc:
        raise JournalError(str(exc)) from None
