"""A run as one record (``RunRecord``) and its conversions: to and from a ``Capture``, to a file.

docs/design.md "a run": the request (key redacted), the response status and headers, every byte
chunk with its arrival time, and the times that matter. A session fills one while it streams; the
File menu saves it, replays it and bundles it through the functions here, and the file is
written by the one capture writer (``playground.runs.journal.CaptureJournal``, a RunSink), so a
saved run and a journaled one are the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Types only: the capture format loads when a run is saved or replayed, not with the window.
    from playground.protocol.capture import Capture
    from playground.transport.errors import TransportError

__all__ = ["RunRecord", "bundle_run", "write_capture"]


@dataclass
class RunRecord:
    """One request and everything that came back; the key is never in here."""

    route: str = "chat"
    method: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # already redacted by the transport
    body: bytes | None = None
    status: int | None = None  # HTTP status
    response_headers: list[tuple[str, str]] = field(default_factory=list)
    chunks: list[tuple[float, bytes]] = field(default_factory=list)
    started_at: float = 0.0  # wall clock (time.time()) when the request went out
    t_headers: float | None = None  # seconds since the request
    t_first_byte: float | None = None
    t_first_token: float | None = None
    t_last_byte: float | None = None
    t_end: float | None = None
    transport_error: TransportError | None = None
    http_error: str | None = None  # describe_http_error's sentence for a non-2xx answer
    retry_after: str | None = None
    replay: bool = False

    @property
    def request(self) -> tuple[str, str, dict[str, str], bytes | None]:
        return (self.method, self.url, self.headers, self.body)

    def header(self, name: str) -> str | None:
        lower = name.lower()
        for key, value in self.response_headers:
            if key.lower() == lower:
                return value
        return None

    def has_run(self) -> bool:
        """Whether anything was sent or received (an empty record is a panel never used)."""
        return bool(self.method or self.chunks)

    def request_json(self) -> dict[str, Any]:
        """The request as captures store it (headers already redacted, the body parsed)."""
        from playground.runs.journal import body_value

        return {
            "method": self.method or "POST",
            "url": self.url,
            "headers": dict(self.headers),
            "body": body_value(self.body),
        }

    def end_time(self) -> float:
        """When the run ended (seconds since the request), else its last chunk's time."""
        if self.t_end is not None:
            return float(self.t_end)
        return float(self.chunks[-1][0]) if self.chunks else 0.0

    def to_capture(self, status: str | None = None) -> Capture:
        """The run as a Capture (for replaying it again; no file involved)."""
        from playground.protocol.capture import Capture

        return Capture(
            route=self.route if self.route != "auto" else None,
            request=self.request_json() if self.method else None,
            response_status=self.status,
            response_headers={k: v for k, v in self.response_headers},
            chunks=list(self.chunks),
            end_t=self.end_time(),
            end_status=status,
        )

    @classmethod
    def from_capture(cls, capture: Capture) -> RunRecord:
        """The record a replay of ``capture`` fills (the request and response as recorded)."""
        request = capture.request or {}
        method = str(request.get("method") or "")
        headers = request.get("headers")
        body = request.get("body")
        if isinstance(body, str):
            raw: bytes | None = body.encode()
        elif body is None:
            raw = None
        else:
            import json

            raw = json.dumps(body, ensure_ascii=False).encode()
        chunks = list(capture.chunks)
        pairs = list(capture.header_pairs) or list(capture.response_headers.items())
        return cls(
            route=capture.route or "auto",
            method=method,
            url=str(request.get("url") or ""),
            headers={str(k): str(v) for k, v in headers.items()}
            if isinstance(headers, dict)
            else {},
            body=raw,
            status=capture.response_status,
            response_headers=pairs,
            chunks=chunks,
            t_headers=capture.response_at,
            t_first_byte=chunks[0][0] if chunks else None,
            t_last_byte=chunks[-1][0] if chunks else None,
            t_end=capture.end_t,
            replay=True,
        )


def write_capture(
    run: RunRecord, path: str | Path, status: str | None = None, *, secrets: tuple[str, ...] = ()
) -> Path:
    """Write ``run`` as a capture file (atomically, through the one writer, CaptureJournal);
    ``secrets`` are scrubbed from the URL and body too, should a key have slipped in."""
    import datetime

    from playground.runs.journal import CaptureJournal

    if not run.has_run():
        raise ValueError("there is no run to save yet")
    journal = CaptureJournal(Path(path), run.route, secrets=secrets, status_source=lambda: status)
    if run.started_at:
        journal.started_at = datetime.datetime.fromtimestamp(
            run.started_at, datetime.UTC
        ).isoformat(timespec="milliseconds")
    journal.on_request(run.method or "POST", run.url, dict(run.headers), run.body)
    if run.status is not None:
        t_headers = run.t_headers if run.t_headers is not None else 0.0
        journal.on_response(run.status, list(run.response_headers), t_headers)
    for t, data in run.chunks:
        journal.on_chunk(t, data)
    journal.on_end(run.end_time())
    return Path(path)


def bundle_run(
    run: RunRecord, out: str | Path, *, status: str | None = None, secrets: tuple[str, ...] = ()
) -> Path:
    """The bug-report zip of ``run``: written to a temporary capture first, then bundled."""
    import tempfile

    from playground.runs.bundle import make_bundle

    with tempfile.TemporaryDirectory(prefix="playground-bundle-") as tmp:
        capture = write_capture(run, Path(tmp) / "run.capture.jsonl", status, secrets=secrets)
        return make_bundle(capture, Path(out), secrets=secrets)
