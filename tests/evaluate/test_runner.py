"""The grid against the real simulator: every check type, a mid-stream fault, repeats, Stop, and
a 429's Retry-After pausing the provider's queue."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from playground.evaluate.report import pass_rates, suite_passed
from playground.evaluate.runner import Progress, Runner
from playground.protocol.capture import read_capture
from playground.sim.server import SimServer
from tests.evaluate.conftest import cell, results, run_suite, suite_of

EVERY_CHECK: list[dict[str, Any]] = [
    {"type": "contains", "value": "{{topic}}", "ignore_case": True},
    {"type": "not_contains", "value": "zzz-never"},
    {"type": "regex", "pattern": "^## ", "normalize_whitespace": True},
    {"type": "ttft_ms", "max": 60000},
    {"type": "first_thinking_ms", "max": 60000},
    {"type": "tokens_per_s", "min": 0.001},
    {"type": "max_gap_ms", "max": 60000},
    {"type": "no_findings", "severity": "warning"},
    {"type": "finish_reason", "value": ["stop", "end_turn"]},
    {"type": "usage_reported"},
    {"type": "partial_images", "min": 0},
    {"type": "tool_args_valid"},
]
VARIANTS: list[dict[str, Any]] = [
    {
        "name": "chat",
        "route": "chat",
        "model": "sim-think",  # "think" in the name: the simulator's chat streams reasoning
        "system": "You explain {{topic}}.",
        "prompt": "Tell me about {{topic}}",
    },
    {
        "name": "messages",
        "route": "messages",
        "model": "sim",
        "system": "You explain {{topic}}.",
        "prompt": "Tell me about {{topic}}",
        "params": {"max_tokens": 4096, "thinking_budget": 1024},
    },
]
CASES = [
    {"id": "plain", "vars": {"topic": "rivers"}, "checks": [{"type": "equals", "value": "nope"}]},
    {"id": "fault", "vars": {"topic": "owls"}, "fault": "midstream-error"},
    {
        "id": "json",
        "vars": {"topic": "maps"},
        "checks": [
            {"type": "json_valid"},
            {"type": "json_schema", "schema": {"type": "object"}},
            {"type": "json_path", "path": "$.a", "equals": 1},
        ],
    },
    {
        "id": "tools",
        "vars": {"topic": "weather"},
        "checks": [{"type": "tool_called", "name": "get_weather"}],
    },
    {
        "id": "judged",
        "vars": {"topic": "tides"},
        "expected": "tides",
        "checks": [
            {
                "type": "llm_judge",
                "prompt": "Score {{output}} against {{expected}} on {{topic}}",
                "min_score": 0,
            }
        ],
    },
]


def test_five_cases_two_variants_every_check_type(sim: SimServer, tmp_path: Path) -> None:
    suite = suite_of(variants=VARIANTS, cases=CASES, checks=EVERY_CHECK)
    runner = run_suite(suite, sim, tmp_path)
    assert len(runner.cells) == 10
    for variant in ("chat", "messages"):
        plain = cell(runner, "plain", variant)
        assert plain.status == "complete"
        checks = results(plain)
        assert checks.pop("equals") is False  # the one check this case adds, made to fail
        assert all(checks.values()), (variant, checks)
        assert plain.passed is False
        faulted = cell(runner, "fault", variant)
        assert faulted.status == "failed" and faulted.passed is False
        assert faulted.checks[0].type == "completed" and not faulted.checks[0].passed
        assert results(faulted)["no_findings"] is False  # the error mid-stream is a finding
        assert results(cell(runner, "json", variant)) | {} == {
            **{c["type"]: True for c in EVERY_CHECK},
            "json_valid": False,
            "json_schema": False,
            "json_path": False,
        }
        assert results(cell(runner, "tools", variant))["tool_called"] is False
        judged = cell(runner, "judged", variant)
        assert judged.passed is True
        verdict = next(c for c in judged.checks if c.type == "llm_judge")
        judge_capture = verdict.detail.removeprefix("judge run: ")
        assert Path(judge_capture).is_file()
        sent = read_capture(Path(judge_capture)).request
        assert sent is not None
        assert "against tides on tides" in str(sent["body"]["messages"])
        assert "Tell me about tides" in str(sent["body"]["messages"])  # {{output}} filled
    # Every cell's run is a capture the inspector opens; the fault's says how it ended.
    faulted_capture = read_capture(Path(cell(runner, "fault", "chat").capture or ""))
    assert faulted_capture.end_status == "failed"
    assert runner.requests == 10 + 2  # a request per cell, and the two judges


def test_same_case_same_answer_on_every_variant(sim: SimServer) -> None:
    same = {"model": "sim", "prompt": "Tell me about {{topic}}", "params": {"max_tokens": 1024}}
    suite = suite_of(
        variants=[same | {"name": r, "route": r} for r in ("chat", "responses", "messages")],
        cases=[{"id": "a", "vars": {"topic": "rivers"}}, {"id": "b", "vars": {"topic": "owls"}}],
        repeat=2,
    )
    runner = run_suite(suite, sim)
    for case in ("a", "b"):
        answers = {c.output for c in runner.cells if c.case == case}
        assert len(answers) == 1 and answers != {""}
    assert cell(runner, "a", "chat").output != cell(runner, "b", "chat").output


def test_repeat_three_gives_a_pass_rate(sim: SimServer) -> None:
    suite = suite_of(
        cases=[
            {"id": "good", "vars": {"topic": "rivers"}},
            {"id": "bad", "vars": {"topic": "owls"}, "fault": "http-500"},
        ],
        checks=[{"type": "contains", "value": "{{topic}}", "ignore_case": True}],
        repeat=3,
    )
    runner = run_suite(suite, sim)
    assert sorted(c.repeat for c in runner.cells if c.key[:2] == ("good", "chat")) == [1, 2, 3]
    rates = pass_rates(runner.cells)
    assert rates == {
        ("good", "chat"): 1.0,
        ("good", "messages"): 1.0,
        ("bad", "chat"): 0.0,
        ("bad", "messages"): 0.0,
    }
    assert not suite_passed(runner.cells, 1.0)
    assert suite_passed([c for c in runner.cells if c.case == "good"], 1.0)


def test_stop_mid_run_leaves_no_half_scored_cell(sim: SimServer, tmp_path: Path) -> None:
    suite = suite_of(
        pace="40",  # 40 ms a token: each answer streams for seconds, long enough to stop it
        cases=[
            {"id": "quick", "vars": {"topic": "rivers"}, "fault": "http-400"},
            {"id": "slow1", "vars": {"topic": "owls"}},
            {"id": "slow2", "vars": {"topic": "tides"}},
        ],
        checks=[{"type": "contains", "value": "{{topic}}"}, {"type": "usage_reported"}],
        concurrency=2,
    )
    seen: list[Progress] = []

    async def go() -> Runner:
        runner = Runner(
            suite, base_urls={"simulator": sim.base_url}, capture_dir=tmp_path, progress=seen.append
        )
        task = asyncio.ensure_future(runner.run())
        while not (
            any(c.finished for c in runner.cells)
            and any(c.status == "running" and c.requests for c in runner.cells)
        ):
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # the running streams have begun to answer
        runner.cancel()
        await task
        return runner

    runner = asyncio.run(go())
    cancelled = [c for c in runner.cells if c.status == "cancelled"]
    scored = [c for c in runner.cells if c.status != "cancelled"]
    assert cancelled and scored
    for found in cancelled:
        assert found.checks == [] and found.passed is False
    for found in scored:
        assert [c.type for c in found.checks] == ["completed", "contains", "usage_reported"]
    started = [c for c in cancelled if c.requests]
    assert started
    for found in started:  # a cell whose stream was cut: its capture says it was cancelled
        assert read_capture(Path(found.capture or "")).end_status == "cancelled"
    assert seen[-1].remaining == 0 and seen[-1].done == len(runner.cells)


def test_retry_after_pauses_the_providers_queue(sim: SimServer) -> None:
    suite = suite_of(
        variants=[VARIANTS[0] | {"model": "sim"}],
        cases=[
            {"id": "limited", "vars": {"topic": "rivers"}, "fault": "http-429"},
            {"id": "ok1", "vars": {"topic": "owls"}},
            {"id": "ok2", "vars": {"topic": "tides"}},
            {"id": "ok3", "vars": {"topic": "maps"}},
        ],
        concurrency=2,
        retries=2,
    )
    seen: list[Progress] = []
    runner = run_suite(suite, sim, progress=seen.append)
    limited = cell(runner, "limited", "chat")
    assert limited.requests == 3 and limited.status == "failed"  # sent, resent twice, given up
    assert runner.retries == 2 and runner.requests == 3 + 3
    pauses = [entry for entry in runner.log if entry[0] == "pause"]
    assert len(pauses) == 2
    for _kind, _provider, _label, until in pauses:
        at = runner.log.index(next(e for e in pauses if e[3] == until))
        later_sends = [e for e in runner.log[at + 1 :] if e[0] == "send"]
        assert later_sends and all(sent_at >= until for *_, sent_at in later_sends)
    statuses = [e[3] for e in runner.log if e[0] == "status" and e[2].startswith("limited")]
    assert statuses == [429, 429, 429]
    assert any("simulator" in p.paused for p in seen)  # the progress line shows the pause
    assert seen[-1].requests == 6 and seen[-1].done == 4


def test_cancelling_the_run_itself_cancels_every_unfinished_cell(sim: SimServer) -> None:
    suite = suite_of(pace="40", concurrency=1, checks=[{"type": "usage_reported"}])

    async def go() -> Runner:
        runner = Runner(suite, base_urls={"simulator": sim.base_url})
        task = asyncio.ensure_future(runner.run())
        while not runner.requests:
            await asyncio.sleep(0.01)
        task.cancel()  # as asyncio.run does on Ctrl+C
        try:
            await task
        except asyncio.CancelledError:
            pass
        return runner

    runner = asyncio.run(go())
    assert [c.status for c in runner.cells] == ["cancelled", "cancelled"]
    assert all(c.checks == [] and c.passed is False for c in runner.cells)


def test_a_request_that_cannot_be_made_fails_its_cell_with_the_reason(sim: SimServer) -> None:
    suite = suite_of(
        variants=[
            {
                "name": "custom",
                "route": "chat",
                "model": "m",
                "prompt": "{{topic}}",
                "provider": "custom",
            }
        ],
    )
    runner = run_suite(suite, sim)
    (only,) = runner.cells
    assert only.status == "failed" and only.passed is False and only.requests == 0
    assert only.error is not None and "needs a base URL" in only.error
    assert [c.type for c in only.checks] == ["completed"]


def test_only_the_chosen_cells_run_again(sim: SimServer) -> None:
    suite = suite_of(
        cases=[{"id": "a", "vars": {"topic": "rivers"}}, {"id": "b", "vars": {"topic": "owls"}}]
    )
    runner = run_suite(suite, sim, only=[("b", "messages", 1), ("a", "chat", 1)])
    assert [c.key for c in runner.cells] == [("a", "chat", 1), ("b", "messages", 1)]
    assert runner.requests == 2 and all(c.passed for c in runner.cells)


def test_a_cells_capture_opens_and_exports_like_any_run(
    sim: SimServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from playground.__main__ import main
    from playground.cli.inspect import decode_file

    runner = run_suite(suite_of(), sim, tmp_path)
    for found in runner.cells:
        capture = Path(found.capture or "")
        decoded = decode_file(capture.read_bytes())
        assert decoded.route == found.variant and decoded.state.text == found.output
        assert decoded.state.status == found.status == "complete"
        assert main(["export", str(capture), "--as", "curl"]) == 0
        assert "Tell me about rivers" in capsys.readouterr().out


SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes"]}, "topic": {"type": "string"}},
    "required": ["verdict", "topic"],
    "additionalProperties": False,
}
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in {{city}}",
        "parameters": {
            "type": "object",
            "properties": {"city": {"enum": ["Oslo"]}},
            "required": ["city"],
        },
    },
}


def test_structured_output_and_tools_pass_their_checks_on_every_route(sim: SimServer) -> None:
    routes = ("chat", "responses", "messages")
    base = {"model": "sim", "prompt": "Weather in {{city}}?", "params": {"max_tokens": 1024}}
    fmt = {"type": "json_schema", "json_schema": {"name": "v", "schema": SCHEMA, "strict": True}}
    suite = suite_of(
        variants=[base | {"name": f"json-{r}", "route": r, "response_format": fmt} for r in routes]
        + [base | {"name": f"tools-{r}", "route": r, "tools": [WEATHER]} for r in routes],
        cases=[{"id": "oslo", "vars": {"city": "Oslo"}}],
    )
    json_checks: list[dict[str, Any]] = [
        {"type": "json_valid"},
        {"type": "json_schema", "schema": SCHEMA},
        {"type": "json_path", "path": "$.verdict", "equals": "yes"},
    ]
    tool_checks: list[dict[str, Any]] = [
        {"type": "tool_called", "name": "get_weather", "arguments": {"city": "{{city}}"}},
        {"type": "tool_args_valid"},
    ]
    suite.checks = json_checks  # the json variants first, then the tools ones on their own
    json_runner = run_suite(suite, sim, variants=[f"json-{r}" for r in routes])
    suite.checks = tool_checks
    tool_runner = run_suite(suite, sim, variants=[f"tools-{r}" for r in routes])
    for found in (*json_runner.cells, *tool_runner.cells):
        assert found.status == "complete" and found.passed, (found.variant, found.checks)
    called = [next(c for c in f.checks if c.type == "tool_called") for f in tool_runner.cells]
    assert [c.value for c in called] == [["get_weather"]] * 3
