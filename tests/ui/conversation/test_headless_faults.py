"""Headless: `playground --route R --fault F --dump-state OUT --exit-when-done` for every
simulator fault on chat and the mid-stream error on every route: exit 0, the status PROTOCOL.md §0
defines, the error's HTTP status, message and type, and a clean asyncio shutdown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from headless_helpers import HeadlessRun, async_warnings, run_headless_batch

from playground.sim.fault_names import FAULTS
from playground.sim.faults import MIDSTREAM_MESSAGE, http_status

# The module fixture runs ~35 headless processes (each with its own simulator) before the first
# test: give it more than the suite's 300 s default on a busy 2-core machine.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROUTES_WITH_MIDSTREAM = ("chat", "responses", "messages", "images", "speech", "transcription")
HTTP_FAULTS = [f for f in FAULTS if http_status(f) is not None]

# fault -> (status, HTTP status in `error`, a finding code the dump must hold, or None)
EXPECTED: dict[str, tuple[str, int | None, str | None]] = {
    "none": ("complete", None, None),
    **{f: ("failed", http_status(f), "http_error") for f in HTTP_FAULTS},
    "no-key": ("failed", 401, "http_error"),
    "non-json-error": ("failed", 502, "http_error"),
    "empty-error": ("failed", 500, "http_error"),
    "json-instead-of-stream": ("complete", None, "json_body"),
    "midstream-error": ("failed", None, "error_mid_stream"),
    "incomplete": ("incomplete", None, None),
    "drop": ("truncated", None, "no_terminator"),
    "stall": ("complete", None, None),
    "bad-json": ("complete", None, "invalid_json"),
    "unknown-events": ("complete", None, "unknown_event"),
    "huge-line": ("complete", None, None),
    "garbage": ("complete", None, "*"),  # any finding: the garbage line must not pass unseen
    "out-of-order": ("complete", None, None),  # chat has no blocks; messages is checked below
    "after-terminator": ("complete", None, "event_after_terminator"),
    "no-cache-usage": ("complete", None, None),  # usage without its cache fields
}


def _args(route: str, fault: str) -> tuple[str, ...]:
    prompt = () if route == "transcription" else ("--prompt", "hi")
    return ("--route", route, *prompt, "--fault", fault, "--pace", "instant")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], HeadlessRun]:
    """All the headless runs at once, three at a time (each one starts its own simulator)."""
    cases = [("chat", f) for f in FAULTS]
    cases += [(r, "midstream-error") for r in ROUTES_WITH_MIDSTREAM if r != "chat"]
    cases += [("music", "midstream-error"), ("messages", "out-of-order")]
    tmp = tmp_path_factory.mktemp("headless-faults")
    results = run_headless_batch(tmp, [_args(r, f) for r, f in cases], parallel=3, timeout=800)
    return {case: result for case, result in zip(cases, results, strict=True)}


def _ok(run: HeadlessRun) -> dict[str, Any]:
    assert run.returncode == 0, (run.args, run.stderr[-2000:])
    assert async_warnings(run.stderr) == [], (run.args, run.stderr[-3000:])
    assert run.dump is not None, run.args
    dump: dict[str, Any] = run.dump
    return dump


def _codes(dump: dict[str, Any]) -> list[str]:
    return [f["code"] for f in dump["findings"]]


@pytest.mark.parametrize("fault", FAULTS)
def test_every_fault_on_chat(runs: dict[tuple[str, str], HeadlessRun], fault: str) -> None:
    dump = _ok(runs[("chat", fault)])
    status, http, code = EXPECTED[fault]
    assert dump["status"] == status, (fault, dump["status"], dump["findings"], dump["error"])
    if code == "*":
        assert dump["findings"], f"{fault}: no finding at all"
    elif code is not None:
        assert code in _codes(dump), (fault, _codes(dump))
    for finding in dump["findings"]:
        assert finding["event"] is None or 0 <= finding["event"] < dump["timeline_rows"]
    if status == "failed":
        error = dump["error"]
        assert error is not None and error["message"], fault
        assert "type" in error
        assert error["status"] == http, (fault, error)
        assert dump["banner"], f"{fault}: the panel said nothing"
        if http is not None:
            assert dump["http_status"] == http
        if fault == "no-key":
            assert error["message"] == "No API key provided"
        elif fault in HTTP_FAULTS:
            assert error["type"], (fault, error)  # the envelope's type reaches the dump
    elif status == "complete":
        assert dump["error"] is None, (fault, dump["error"])
        assert dump["text"] or dump["reasoning"], fault
    if status in ("truncated", "incomplete") or fault == "midstream-error":
        # What arrived before the end is kept (PROTOCOL.md §0).
        assert dump["text"] or dump["reasoning"], fault
        assert dump["banner"], f"{fault}: the panel said nothing"


@pytest.mark.parametrize("route", [*ROUTES_WITH_MIDSTREAM, "music"])
def test_midstream_error_on_every_route(
    runs: dict[tuple[str, str], HeadlessRun], route: str
) -> None:
    dump = _ok(runs[(route, "midstream-error")])
    assert dump["status"] == "failed", (route, dump["status"], dump["findings"])
    assert dump["error"]["message"] == MIDSTREAM_MESSAGE
    assert dump["error"]["type"], route
    assert "error_mid_stream" in _codes(dump), (route, _codes(dump))
    assert "failed" in dump["banner"], dump["banner"]


def test_blocks_out_of_order_on_messages(runs: dict[tuple[str, str], HeadlessRun]) -> None:
    dump = _ok(runs[("messages", "out-of-order")])
    assert dump["status"] in ("complete", "incomplete")  # the simulator's plan may hit max_tokens
    assert "delta_before_start" in _codes(dump), _codes(dump)


def test_headless_run_that_never_starts_still_exits(tmp_path: Path) -> None:
    """A transcription whose file is missing never sends: the run must still end and exit 0 with
    no traceback (it used to hang in shutdown after a qasync re-entrancy RuntimeError)."""
    (result,) = run_headless_batch(
        tmp_path,
        [("--route", "transcription", "--prompt", str(tmp_path / "missing.wav"))],
        timeout=40,
    )
    assert result.seconds < 38, "the headless run hung"
    dump = _ok(result)
    assert dump["status"] in ("idle", "failed")
