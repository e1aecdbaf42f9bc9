"""The run pipeline's sinks: the tee (journal reads merged, order kept), scrubbing, the end gate."""

from __future__ import annotations

from typing import Any

from playground.transport.errors import TransportError
from playground.transport.pipeline import EndGate, Recorder, ScrubbingSink, TeeSink

KEY = "sk-pipe-SECRET-123456"


class Calls:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def on_request(self, method: str, url: str, headers: Any, body: Any) -> None:
        self.calls.append(("request", method))

    def on_response(self, status: int, headers: Any, t: float) -> None:
        self.calls.append(("response", status, t))

    def on_chunk(self, t: float, data: bytes) -> None:
        self.calls.append(("chunk", t, data))

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.calls.append(("error", error.kind))

    def on_end(self, t: float) -> None:
        self.calls.append(("end", t))

    def flush(self) -> None:
        self.calls.append(("flush",))


class Finishing(Calls):
    def finish(
        self,
        status: str | None = None,
        preview: str | None = None,
        error: str | None = None,
        ttft: float | None = None,
    ) -> None:
        self.calls.append(("finish", status, preview, error))


def test_the_tee_merges_close_reads_for_the_journals_only_and_keeps_the_order() -> None:
    first, journal = Calls(), Calls()
    tee = TeeSink(first, journal, merge_s=0.002)
    tee.on_request("POST", "u", {}, None)
    tee.on_response(200, [], 0.01)
    tee.on_chunk(0.100, b"a")
    tee.on_chunk(0.101, b"b")  # within 2 ms of the group's first read: merged
    tee.on_chunk(0.200, b"c")  # a new group
    tee.on_transport_error(TransportError("dropped", "gone"), 0.3)
    tee.on_end(0.3)
    assert [c for c in first.calls if c[0] == "chunk"] == [
        ("chunk", 0.100, b"a"),
        ("chunk", 0.101, b"b"),
        ("chunk", 0.200, b"c"),
    ]
    assert journal.calls == [
        ("request", "POST"),
        ("response", 200, 0.01),
        ("chunk", 0.101, b"ab"),
        ("chunk", 0.200, b"c"),
        ("error", "dropped"),
        ("end", 0.3),
    ]


def test_without_merging_the_tee_hands_every_call_to_every_sink() -> None:
    a, b = Calls(), Calls()
    tee = TeeSink(a, b)
    tee.on_chunk(0.1, b"x")
    tee.on_chunk(0.1, b"y")
    assert a.calls == b.calls == [("chunk", 0.1, b"x"), ("chunk", 0.1, b"y")]


def test_scrubbing_replaces_an_echoed_key_in_bytes_and_in_the_verdict() -> None:
    plain, finishing = Calls(), Finishing()
    assert isinstance(finishing, Recorder) and not isinstance(plain, Recorder)
    for sink in (plain, finishing):
        scrubbed = ScrubbingSink(sink, (KEY,))
        scrubbed.on_chunk(0.1, f'{{"echo": "{KEY}"}}'.encode())
        scrubbed.finish("failed", preview=f"said {KEY}", error=f"bad key {KEY}")
    assert plain.calls == [("chunk", 0.1, b'{"echo": "[redacted]"}')]
    assert finishing.calls[-1] == ("finish", "failed", "said [redacted]", "bad key [redacted]")


def test_the_end_gate_holds_the_end_until_released() -> None:
    sink = Calls()
    gate = EndGate(sink)
    gate.on_request("POST", "u", {}, None)
    gate.on_end(0.5)
    gate.flush()
    assert sink.calls == [("request", "POST"), ("flush",)]
    gate.release()
    assert sink.calls[-1][0] == "end" and sink.calls[-1][1] >= 0.5
