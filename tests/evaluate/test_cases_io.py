"""Cases in and out: CSV and JSONL round trips, and cases made from History runs and from a
proxy exchange's capture."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from playground.evaluate.cases_io import (
    case_from_capture,
    cases_from_csv,
    cases_from_jsonl,
    cases_to_csv,
    cases_to_jsonl,
)
from playground.evaluate.suite import Case, SuiteError
from playground.protocol.requests import RequestParams, build_body
from playground.runs.history import RunHistory
from playground.sim.server import SimServer
from playground.transport.client import stream_request
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec

TRICKY = [
    Case(
        "q1",
        vars={"question": 'Say "hi", then\nlist: a, b, c', "lang": "en"},
        expected='hi,\n"a", b',
        checks=[{"type": "contains", "value": "a, b"}],
        fault="midstream-error",
    ),
    Case(
        "q2", vars={"question": "plain", "lang": ""}, messages=[{"role": "user", "content": "x, y"}]
    ),
]


def test_csv_with_quoted_commas_and_newlines_round_trips() -> None:
    text = cases_to_csv(TRICKY)
    assert '"Say ""hi"", then\nlist: a, b, c"' in text  # RFC 4180 quoting, newline kept inside
    back = cases_from_csv(text)
    assert [c.as_json() for c in back] == [c.as_json() for c in TRICKY]
    assert cases_to_csv(back) == text


def test_jsonl_round_trips() -> None:
    text = cases_to_jsonl(TRICKY)
    assert len(text.splitlines()) == 2
    assert [c.as_json() for c in cases_from_jsonl(text)] == [c.as_json() for c in TRICKY]


def test_a_bad_row_is_named() -> None:
    with pytest.raises(SuiteError, match="CSV row 3: 3 fields, the header has 2"):
        cases_from_csv("id,topic\nc1,rivers\nc2,owls,extra\n")
    with pytest.raises(SuiteError, match=r"cases\[0\]\.fault: 'fire' is not a simulator fault"):
        cases_from_csv("id,fault\nc1,fire\n")
    with pytest.raises(SuiteError, match="JSONL line 2: not JSON"):
        cases_from_jsonl('{"id": "a"}\n{oops\n')


THREAD = [
    {"role": "user", "content": "What is a river?"},
    {"role": "assistant", "content": "Flowing water."},
    {"role": "user", "content": "And a delta?"},
]


def _history_run(history: RunHistory, sim: SimServer, route: str) -> Path:
    body = build_body(route, RequestParams(model="sim", messages=THREAD, max_tokens=500))
    spec = make_spec(
        provider_by_id("simulator"),
        route,
        body,
        None,
        base_url=sim.base_url,
        sim_headers={"X-Sim-Pace": "instant"},
    )
    assert spec is not None
    recorder = history.start_run(route, provider_id="simulator", model="sim")
    asyncio.run(stream_request(spec, recorder))
    return history.capture_path(recorder.run_id)


def test_cases_from_two_history_runs(sim: SimServer, tmp_path: Path) -> None:
    history = RunHistory(tmp_path / "history")
    for n, route in enumerate(("chat", "messages")):
        case = case_from_capture(_history_run(history, sim, route), f"h{n}")
        assert case.vars == {"input": "And a delta?"}
        assert case.messages == THREAD[:2]
        assert case.expected and case.expected.startswith('Following up on "What is a river"')
    assert len(history.list_runs()) == 2


def test_a_case_from_a_proxy_exchange(sim: SimServer, tmp_path: Path) -> None:
    from tests.proxy.conftest import start_proxy

    proxy = start_proxy(sim.base_url, save=tmp_path)
    try:
        body = build_body("chat", RequestParams(model="sim", prompt="Name three owls"))
        with httpx.stream(
            "POST",
            proxy.base_url + "/chat/completions",
            json=body,
            headers={"X-Sim-Pace": "instant"},
        ) as response:
            answer = b"".join(response.iter_raw())
        deadline = time.monotonic() + 10
        while not list(tmp_path.glob("*.capture.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        proxy.server.stop()
    (capture,) = tmp_path.glob("*.capture.jsonl")
    case = case_from_capture(capture, "p1")
    assert case.vars == {"input": "Name three owls"} and case.messages == []
    from playground.cli.inspect import decode_file

    assert case.expected and case.expected == decode_file(answer, "chat").state.text
