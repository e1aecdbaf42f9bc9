"""Exchanges as RunSink calls: what a window's panel would be told, in the transport's order."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from playground.proxy.exchange import Exchange
from playground.proxy.sinks import RunSinks
from playground.runs.journal import CaptureJournal, read_journal
from playground.sim.server import SimServer
from playground.transport.errors import TransportError

from .conftest import INSTANT, start_proxy

CHAT = {"model": "sim-chat", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}


class Calls:
    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.body = b""
        self.headers: dict[str, str] = {}

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self.kinds.append("request")
        self.headers = headers

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self.kinds.append(f"response {status}")

    def on_chunk(self, t: float, data: bytes) -> None:
        if self.kinds[-1] != "chunk":
            self.kinds.append("chunk")
        self.body += data

    def on_transport_error(self, error: TransportError, t: float) -> None:
        self.kinds.append(f"error {error.kind}")

    def on_end(self, t: float) -> None:
        self.kinds.append("end")


def test_each_exchange_reaches_its_sink_as_a_run_would(sim: SimServer, tmp_path: Path) -> None:
    followed: list[Calls] = []
    journals: list[CaptureJournal] = []

    def sink_for(ex: Exchange) -> Calls | CaptureJournal | None:
        if ex.route is None:
            return None  # /v1/models is not followed
        if ex.route == "messages":  # the app's own capture journal is a RunSink too
            journals.append(CaptureJournal(tmp_path / "run.capture.jsonl", ex.route))
            return journals[-1]
        followed.append(Calls())
        return followed[-1]

    proxy = start_proxy(sim.base_url)
    proxy.hub.subscribe(RunSinks(sink_for))
    try:
        auth = {"Authorization": "Bearer sk-sink-secret-123"} | INSTANT
        got = httpx.post(proxy.base_url + "/chat/completions", json=CHAT, headers=auth).content
        httpx.get(proxy.base_url + "/models")
        with (
            httpx.stream(
                "POST",
                proxy.base_url + "/chat/completions",
                json=CHAT,
                headers=INSTANT | {"X-Sim-Fault": "drop"},
            ) as r,
        ):
            try:
                for _ in r.iter_raw():
                    pass
            except httpx.RemoteProtocolError:
                pass
        httpx.post(proxy.base_url + "/messages", json=CHAT | {"max_tokens": 50}, headers=INSTANT)
        proxy.lines(count=4)
        time.sleep(0.05)
    finally:
        proxy.server.stop()
    ok, dropped = followed
    assert ok.kinds == ["request", "response 200", "chunk", "end"] and ok.body == got
    assert ok.headers["authorization"] == "Bearer [redacted]"
    assert dropped.kinds == ["request", "response 200", "chunk", "error dropped", "end"]
    run = read_journal(tmp_path / "run.capture.jsonl")
    assert run.route == "messages" and run.response_status == 200 and b"message_stop" in run.body
