"""Each exchange decoded as the playground decodes its runs: status, events, findings, timing.

The decoder reads what the client got, so a 502 the proxy wrote for an upstream that could not
be reached is read as the failed request it is (``fail_before_stream``), a body the upstream cut
short as the stream it is (``truncated`` unless an error came first), a client that left as
``cancelled``. A path the playground knows no grammar of (``/v1/models``, ``/v1/embeddings``) is
not decoded: its status comes from how it ended alone.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final

from playground.protocol.figures import first_token
from playground.protocol.stream import StreamDecoder
from playground.protocol.timing import compute_timing
from playground.proxy.exchange import Exchange, Listener

if TYPE_CHECKING:
    from playground.proxy.accounts import ExchangeAccounts

__all__ = ["ERROR_BODY_MAX", "Verdicts", "summary_keys"]

ERROR_BODY_MAX: Final = 1 << 20  # an error body is kept (to read its envelope) up to 1 MiB
KEPT: Final = 1000  # summaries kept for asking later (a proxy may run for days)


def summary_keys() -> tuple[str, ...]:
    """The keys of each exchange's line, in order (README: `playground proxy`)."""
    return (
        "method",
        "path",
        "route",
        "http_status",
        "status",
        "events",
        "findings",
        "ttft_ms",
        "duration_ms",
        "capture",
        "cache",
        "cost",
    )


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000.0, 1)


class _Decoding:
    __slots__ = ("decoder", "error_body", "failed_before")

    def __init__(self, decoder: StreamDecoder | None) -> None:
        self.decoder = decoder
        self.error_body: bytearray | None = None
        self.failed_before = False


class Verdicts(Listener):
    """A listener that decodes every exchange and keeps, for each one that ended, its summary."""

    def __init__(self, accounts: ExchangeAccounts | None = None) -> None:
        self.accounts = accounts  # each exchange's cache and cost (proxy/accounts.py)
        self._open: dict[int, _Decoding] = {}
        self.summaries: OrderedDict[int, dict[str, Any]] = OrderedDict()

    def on_start(self, ex: Exchange) -> None:
        self._open[ex.id] = _Decoding(None)

    def on_request(self, ex: Exchange) -> None:
        if ex.route is None:
            return
        audio = ex.facts.audio_format if ex.route == "speech" else None
        decoder = StreamDecoder(
            ex.route, audio_format=audio, stream_requested=ex.facts.stream_requested
        )
        self._open[ex.id] = _Decoding(decoder)

    def on_response(self, ex: Exchange) -> None:
        run = self._open.get(ex.id)
        if run is None or run.decoder is None:
            return
        if (ex.http_status or 0) >= 400:
            run.error_body = bytearray()
        else:
            run.decoder.set_content_type(ex.header("content-type"))

    def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None:
        run = self._open.get(ex.id)
        if run is None or run.decoder is None:
            return
        if run.error_body is not None:
            room = ERROR_BODY_MAX - len(run.error_body)
            if room > 0:
                run.error_body += data[:room]
            return
        run.decoder.feed(data, t)

    def on_end(self, ex: Exchange) -> None:
        run = self._open.pop(ex.id, None)
        decoder = run.decoder if run is not None else None
        t_end = ex.t_end if ex.t_end is not None else ex.now()
        events = 0
        findings: list[str] = []
        ttft: float | None = None
        if decoder is not None and run is not None:
            if run.error_body is not None and ex.http_status is not None:
                decoder.fail_before_stream(
                    ex.http_status,
                    bytes(run.error_body),
                    ex.header("content-type"),
                    ex.header("retry-after"),
                )
            else:
                if ex.outcome == "cancelled":
                    decoder.cancel()
                decoder.finish(t_end)
                ttft = _first_output(decoder, ex, t_end)
            status: str = decoder.state.status
            events = decoder.state.events
            findings = [f.code for f in decoder.findings]
        else:
            status = _status_without_grammar(ex)
        self.summaries[ex.id] = {
            "method": ex.method,
            "path": ex.path,
            "route": ex.route,
            "http_status": ex.http_status,
            "status": status,
            "events": events,
            "findings": findings,
            "ttft_ms": _ms(ttft),
            "duration_ms": _ms(t_end),
            "capture": ex.capture,
            **self._accounted(ex, decoder),
        }
        while len(self.summaries) > KEPT:
            self.summaries.popitem(last=False)

    def _accounted(self, ex: Exchange, decoder: StreamDecoder | None) -> dict[str, Any]:
        if self.accounts is None:
            return {"cache": None, "cost": None}
        return self.accounts.account(ex, decoder)

    def status(self, ex: Exchange) -> str | None:
        found = self.summaries.get(ex.id)
        return None if found is None else str(found["status"])

    def summary(self, ex: Exchange) -> dict[str, Any] | None:
        """The exchange's line (``capture`` as the recorder left it on the exchange)."""
        found = self.summaries.get(ex.id)
        if found is None:
            return None
        return found | {"capture": ex.capture}


def _first_output(decoder: StreamDecoder, ex: Exchange, t_end: float) -> float | None:
    """Time to first token, as every view counts it (protocol/figures.py)."""
    if decoder.state.events == 0 and not decoder.items:
        return None
    return first_token(compute_timing(decoder, ex.t_response, ex.t_first_byte, t_end=t_end))


def _status_without_grammar(ex: Exchange) -> str:
    if ex.outcome == "cancelled":
        return "cancelled"
    if ex.outcome == "failed" or (ex.http_status or 0) >= 400:
        return "failed"
    if ex.outcome == "dropped":
        return "truncated"
    return "complete"
