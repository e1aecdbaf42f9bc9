"""One request of a cell, sent and decoded as it streams, its bytes journaled as a capture.

The transport's async client feeds a TeeSink: first a sink that decodes each read (the same
``StreamDecoder`` the panels use), then the capture journal (``runs/journal.py``) behind a
ScrubbingSink, so the cell's capture opens in the inspector, exports and bundles like any run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import httpx

from playground.evaluate.outcome import RunOutcome, outcome_of
from playground.protocol.redaction import scrub
from playground.protocol.stream import StreamDecoder
from playground.runs.journal import CaptureJournal
from playground.runs.outcome import end_run
from playground.runs.record import RunRecord
from playground.runs.writer import FileWriter
from playground.transport.client import stream_request
from playground.transport.errors import TransportError
from playground.transport.pipeline import ScrubbingSink, TeeSink, scrub_bytes
from playground.transport.spec import RequestSpec

__all__ = ["Attempt", "DecodingSink", "attempt_of", "journaled", "send_once"]

ERROR_BODY_MAX: Final = 1 << 20  # an error body is kept up to 1 MiB to read its envelope


@dataclass(slots=True)
class Attempt:
    """What one request gave: its outcome, HTTP status and Retry-After (a 429 or 503 asks)."""

    outcome: RunOutcome
    http_status: int | None
    retry_after: str | None


class DecodingSink:
    """A RunSink that decodes as the bytes come; the record holds times and status, not bytes.
    With ``decoded_ahead`` set, a reader thread has decoded each read already
    (``transport.decode_ahead``): this sink only keeps the times, the status and an error body."""

    def __init__(
        self,
        route: str,
        body: dict[str, Any] | None,
        secrets: list[str],
        *,
        decoded_ahead: bool = False,
    ) -> None:
        self.secrets = secrets
        self.decoded_ahead = decoded_ahead
        self.decoder = StreamDecoder(route, request=body)
        self.record = RunRecord(route=route)
        self.error_body = bytearray()
        self.cancelled = False

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.record.method, self.record.url = method, url

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        record = self.record
        record.status, record.response_headers, record.t_headers = status, headers, t
        if status < 400 and not self.decoded_ahead:
            self.decoder.set_content_type(record.header("content-type"))

    def on_chunk(self, t: float, data: bytes) -> None:
        record = self.record
        if record.t_first_byte is None:
            record.t_first_byte = t
        if (record.status or 0) >= 400:
            room = ERROR_BODY_MAX - len(self.error_body)
            if room > 0:
                self.error_body += data[:room]
            return
        if not self.decoded_ahead:
            self.decoder.feed(data, t)

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.record.transport_error = error

    def on_end(self, t: float) -> None:
        # The transport ends the run from its ``finally`` as the task is being cancelled: the
        # task's pending cancellation is the one sign of Stop that reaches here in time.
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            self.cancelled = True
        if self.cancelled:
            self.decoder.cancel()
        # The error's envelope is read for its message: any key it echoes is out of it first.
        end_run(self.record, self.decoder, scrub_bytes(bytes(self.error_body), self.secrets), t)

    def status(self) -> str | None:
        return "cancelled" if self.cancelled else self.decoder.state.status


async def send_once(
    spec: RequestSpec,
    body: dict[str, Any] | None,
    capture: Path | None,
    client: httpx.AsyncClient,
    *,
    first_byte_timeout: float = 120.0,
    on_decoder: Callable[[StreamDecoder], None] | None = None,
) -> Attempt:
    """Send ``spec`` once and decode it; CancelledError propagates after the capture is closed
    with the status ``cancelled``. ``on_decoder`` gets the run's decoder before the request is
    sent, so a window can show the answer as it grows."""
    secrets = spec.secrets()
    decoding = DecodingSink(spec.route, body, secrets)
    if on_decoder is not None:
        on_decoder(decoding.decoder)
    tee = journaled(decoding, spec, capture)
    try:
        await stream_request(spec, tee, client=client, first_byte_timeout=first_byte_timeout)
    except asyncio.CancelledError:
        decoding.cancelled = True
        tee.end_if_open(decoding.record.end_time())
        raise
    return attempt_of(decoding)


def journaled(
    decoding: DecodingSink,
    spec: RequestSpec,
    capture: Path | None,
    writer: FileWriter | None = None,
) -> TeeSink:
    """``decoding`` first, then the capture journal (scrubbed of the request's keys), if any;
    its lines, fsync and rename on ``writer``'s thread when one is given."""
    sinks: list[Any] = []
    if capture is not None:
        journal = CaptureJournal(capture, spec.route, status_source=decoding.status, writer=writer)
        sinks.append(ScrubbingSink(journal, decoding.secrets))
    return TeeSink(decoding, *sinks)


def attempt_of(decoding: DecodingSink) -> Attempt:
    """What a request that ended gave, from its sink; no echoed key in its answer or error."""
    secrets = decoding.secrets
    record = decoding.record
    error = record.transport_error.message if record.transport_error is not None else None
    if error is None and record.http_error is not None:
        error = record.http_error
    outcome = outcome_of(
        decoding.decoder,
        t_headers=record.t_headers,
        t_first_byte=record.t_first_byte,
        t_end=record.t_end,
        http_status=record.status,
        error=error,
    )
    if secrets:  # the answer and the error go into the experiment file: no echoed key in them
        outcome.text = scrub(outcome.text, *secrets)
        outcome.error = scrub(outcome.error, *secrets) if outcome.error else outcome.error
    return Attempt(outcome, record.status, record.retry_after)
