"""A tiny run of every benchmark so they never rot: output format and sanity, never speed."""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from playground.bench import runner
from playground.bench.streams import chat_stream, chat_tokens, fixed_chunks, random_chunks

LINE = re.compile(r"^([a-z0-9_]+): (-?[0-9.]+(?:e[-+]?[0-9]+)?|n/a \(.+\))$")


def _numbers(figures: Mapping[str, float | str], *names: str) -> None:
    for name in names:
        value = figures[name]
        assert isinstance(value, float), f"{name} = {value!r}"
        assert math.isfinite(value) and value > 0, f"{name} = {value!r}"


def test_streams_are_deterministic_and_cut_without_loss() -> None:
    data = chat_stream(50)
    assert data == chat_stream(50)
    assert data.count(b"\n\n") == 51 and data.endswith(b"data: [DONE]\n\n")
    pieces = random_chunks(data, 15, 45)
    assert b"".join(pieces) == data
    assert all(15 <= len(p) <= 45 for p in pieces[:-1])
    assert b"".join(fixed_chunks(data, 4096)) == data
    assert len(chat_tokens(50)) == 50


def test_parser_peers_agree_and_figures_are_ratios() -> None:
    from playground.bench.parsers import PEERS, arrivals, parser_figures, run_ours

    chunks = random_chunks(chat_stream(40), 15, 45)
    timed = arrivals(chunks)
    assert [chunk for _, chunk in timed] == chunks
    assert [t for t, _ in timed] == sorted({t for t, _ in timed})
    assert run_ours(timed) == 41
    for name, run in PEERS.items():
        assert run(chunks) == 41, name
    figures = parser_figures(300, 1)
    _numbers(
        figures,
        "parser_vs_httpx_sse_4k",
        "parser_vs_openai_4k",
        "parser_vs_httpx_sse_30b",
        "parser_vs_sseclient_30b",
        "parser_mb_s_4k",
    )
    ratio = figures["parser_mb_s_4k"] / figures["httpx_sse_mb_s_4k"]
    assert figures["parser_vs_httpx_sse_4k"] == pytest.approx(ratio)
    # Which parser ran is printed, and the compiled build is measured beside its own source.
    from playground.bench.parsers import source_parser
    from playground.protocol import is_compiled, sse

    assert runner.machine()["parser"] == ("mypyc" if is_compiled(sse) else "source")
    if is_compiled(sse):
        _numbers(figures, "parser_source_mb_s_4k", "parser_source_mb_s_30b")
        assert run_ours(timed, source_parser()) == 41
        assert not is_compiled(source_parser())


def test_parser_peers_read_their_share_and_must_see_every_event() -> None:
    from playground.bench.parsers import PEER_SHARE, Contender, _plan, measure

    plan = _plan("30b", 600, lambda data: random_chunks(data, 15, 45), ["sseclient"])
    assert plan["ours"].events == 601 and plan["sseclient"].events == 600 // 3 + 1
    share = plan["ours"].megabytes / plan["sseclient"].megabytes
    assert share == pytest.approx(PEER_SHARE["30b", "sseclient"], rel=0.05)
    assert set(measure(plan, 1)) >= {"ours", "sseclient"}
    wrong = Contender(plan["sseclient"].run, plan["sseclient"].megabytes, 600)
    with pytest.raises(RuntimeError, match="sseclient saw 201 events, expected 600"):
        measure({"sseclient": wrong}, 1)


def test_decode_figure_checks_the_text() -> None:
    from playground.bench.decode import decode_figures, run_openai, run_ours

    chunks = fixed_chunks(chat_stream(30), 4096)
    expected = "".join(chat_tokens(30))
    assert run_ours(chunks) == (31, expected)
    assert run_openai(chunks) == (31, expected)
    _numbers(decode_figures(200, 1), "decode_vs_openai_sdk", "decode_events_s")


def test_timeline_memory_figure() -> None:
    from playground.bench.timeline import timeline_figures

    figures = timeline_figures(2_000)
    _numbers(figures, "timeline_bytes_per_event", "timeline_raw_bytes_per_event")
    assert figures["timeline_events"] == 2_000.0
    # Every event holds at least its raw bytes' worth of object headers and columns.
    assert 50 < figures["timeline_bytes_per_event"] < 100_000  # type: ignore[operator]


def test_render_growth_figure() -> None:
    from playground.bench.render import render_figures

    figures = render_figures(1_200)
    _numbers(figures, "render_growth", "render_token_ms_early", "render_token_ms_late")


def test_markdown_figures() -> None:
    from playground.bench.markdown import markdown_figures, markdown_tokens

    text = "".join(markdown_tokens(400))
    assert "## Part 1" in text and "| route |" in text and "```python" in text and "- [ ]" in text
    figures = markdown_figures(1_200)
    _numbers(figures, "markdown_growth", "markdown_frame_ms", "markdown_frame_ms_early")
    assert figures["markdown_blocks"] > 5  # type: ignore[operator]


def test_image_figures() -> None:
    from playground.bench.image import image_figures

    figures = image_figures(1)
    _numbers(figures, "image_partial_ms", "image_naive_ms", "image_partial_vs_naive")
    ratio = figures["image_partial_ms"] / figures["image_naive_ms"]  # type: ignore[operator]
    assert figures["image_partial_vs_naive"] == pytest.approx(ratio)
    assert figures["image_partials"] == 1.0
    assert isinstance(figures["image_ui_block_ms"], float) and figures["image_ui_block_ms"] >= 0


@pytest.mark.slow
def test_startup_figure() -> None:
    from playground.bench.startup import startup_figures

    figures = startup_figures(1)
    _numbers(figures, "startup_vs_bare_qt", "startup_ours_s", "startup_bare_qt_s")
    _numbers(figures, "startup_ready_vs_bare_qt", "startup_ours_ready_s")
    # Ours paints its window empty first, then with its contents: never the other way round.
    assert figures["startup_ours_ready_s"] >= figures["startup_ours_s"]  # type: ignore[operator]


@pytest.mark.slow
def test_ui_figures_in_a_child_process() -> None:
    figures = runner.measure(["ui"], "tiny")
    _numbers(figures, "ui_vs_raw_client", "ui_events_s", "raw_client_events_s")
    _numbers(figures, "ui_paced_events_s", "ui_busy_p99_ms")
    _numbers(figures, "ui_markdown_vs_plain", "ui_plain_vs_raw_client")
    assert isinstance(figures["ui_stall_p99_ms"], float)
    assert isinstance(figures["ui_stall_2k_p99_ms"], float)


def test_session_figures_in_a_child_process() -> None:
    figures = runner.measure(["session"], "tiny")
    _numbers(figures, "session_memory_growth", "session_frame_ms_p99", "session_rss_mb_late")
    assert figures["session_runs"] == 6.0
    # Every run's question and answer stay in the panel's thread.
    assert figures["session_turns"] == 12.0
    assert figures["session_history_runs"] == 6.0  # and every run is in the history
    # One conversation: the sixth request carried the five runs' prompts and answers, then its own.
    assert figures["session_request_turns"] == 11.0
    assert figures["session_conversations"] == 1.0  # and it is kept as one conversation
    frames = figures["session_frames"]
    assert isinstance(frames, float) and frames >= 1.0


def test_transcript_figures_in_a_child_process() -> None:
    figures = runner.measure(["transcript"], "tiny")
    _numbers(figures, "transcript_open_ms", "transcript_scroll_p99_ms", "transcript_scroll_frames")
    assert figures["transcript_turns"] == 6.0  # the saved conversation opened whole
    # End to end and back: at least a page each way.
    pages = figures["transcript_pages"]
    assert isinstance(pages, float) and pages >= 1.0
    assert figures["transcript_scroll_frames"] >= 2 * pages  # type: ignore[operator]
    assert [f.name for f in runner.FIGURES if f.group == "transcript"] == [
        "transcript_open_ms",
        "transcript_scroll_p99_ms",
    ]
    assert "transcript" in runner.GROUPS and "transcript" in runner.QT_GROUPS
    assert "transcript" not in runner.DEFAULT_GROUPS  # --only transcript


def test_the_saved_transcript_has_code_and_tables_in_each_answer(tmp_path: Path) -> None:
    from playground.bench.transcript import save_conversation
    from playground.runs.conversations import ConversationStore

    conversation_id = save_conversation(str(tmp_path), 8)
    saved = ConversationStore(tmp_path / "conversations").load(conversation_id)
    turns = saved.conversation.turns
    assert [t.role for t in turns] == ["user", "assistant"] * 4
    answers = [t.text for t in turns if t.role == "assistant"]
    assert len(set(answers)) == 4  # no two alike
    for text in answers:
        assert text.count("```") == 2 and "|---------|" in text
        assert 250 <= len(text.split()) <= 500  # a few hundred words


def test_hostile_figures_through_inspect_and_the_window() -> None:
    figures = runner.measure(["hostile"], "tiny")
    for kind in ("line", "invalid", "deep"):
        for reader in ("", "_inspect", "_window"):
            value = figures[f"hostile_{kind}_rss_ratio{reader}"]
            assert isinstance(value, float) and math.isfinite(value) and value >= 0, value
        assert figures[f"hostile_{kind}_rss_ratio"] == max(
            figures[f"hostile_{kind}_rss_ratio_inspect"],
            figures[f"hostile_{kind}_rss_ratio_window"],
        )
    assert "hostile" in runner.GROUPS and "hostile" not in runner.DEFAULT_GROUPS


def test_repeated_figures_are_medians_with_their_spread() -> None:
    runs: list[dict[str, float | str]] = [
        {"ui_stall_p99_ms": 30.0, "ui_events_s": 5.0, "note": "n/a (x)"},
        {"ui_stall_p99_ms": 10.0, "ui_events_s": 7.0, "note": 1.0},
        {"ui_stall_p99_ms": 20.0, "ui_events_s": 6.0, "note": 2.0},
    ]
    out = runner.combine(runs, ["ui_stall_p99_ms"])
    assert out["ui_stall_p99_ms"] == 20.0 and out["ui_events_s"] == 6.0
    assert (out["ui_stall_p99_ms_min"], out["ui_stall_p99_ms_max"]) == (10.0, 30.0)
    assert "ui_events_s_min" not in out
    assert out["note"] == "n/a (x)"  # a repetition that could not measure it says so
    table = runner.table_of(out)
    assert "spread" in table.splitlines()[0]
    assert re.search(r"ui_stall_p99_ms +20\.00 +10\.00-30\.00 +<= 25 ms +yes", table), table


def test_noisy_groups_repeat_and_the_session_runs_only_when_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    values = iter([3.0, 1.0, 2.0])

    def fake(group: str, sizes: runner.Sizes) -> dict[str, float | str]:
        calls.append(group)
        return {"proxy_vs_direct": next(values), "proxy_added_ms_p99": 1.0}

    monkeypatch.setattr(runner, "_run_group", fake)
    figures = runner.measure(["proxy"], "quick")
    assert calls == ["proxy"] * 3
    assert figures["proxy_vs_direct"] == 2.0 and figures["proxy_repetitions"] == 3.0
    assert {"ui", "image", "startup", "proxy"} == runner.REPEATED
    assert "session" in runner.GROUPS and "session" not in runner.DEFAULT_GROUPS


def test_main_prints_name_value_lines_then_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert runner.main(["--tiny", "--only", "parser,decode"]) == 0
    out = capsys.readouterr().out
    head, _, rest = out.partition("\n\n")
    lines = head.splitlines()
    assert lines, out
    for line in lines:
        assert LINE.match(line), line
    names = [line.split(":")[0] for line in lines]
    assert names[:5] == [
        "parser_vs_httpx_sse_4k",
        "parser_vs_openai_4k",
        "parser_vs_httpx_sse_30b",
        "parser_vs_sseclient_30b",
        "decode_vs_openai_sdk",
    ]
    assert "figure" in rest and ">= 3" in rest and "nproc" in rest


def test_a_broken_benchmark_reports_na_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = runner._run_group

    def broken(group: str, sizes: runner.Sizes) -> dict[str, float | str]:
        if group == "decode":
            raise ImportError("no module named playground.protocol.stream")
        return real(group, sizes)

    monkeypatch.setattr(runner, "_run_group", broken)
    assert runner.main(["--tiny", "--only", "decode,parser"]) == 0
    out = capsys.readouterr().out
    assert "decode_vs_openai_sdk: n/a (ImportError: no module named" in out
    assert re.search(r"^parser_vs_openai_4k: [0-9.]+$", out, re.MULTILINE)


def test_a_child_that_dies_reports_na(monkeypatch: pytest.MonkeyPatch) -> None:
    # A Qt group runs in a child interpreter; if it dies, each of its figures says so.
    monkeypatch.setattr(sys, "executable", "/bin/false")  # the one runner.py reads
    figures = runner.measure(["image"], "tiny")
    assert figures["image_partial_ms"] == "n/a (exit status 1)"
    assert figures["image_ui_block_ms"] == "n/a (exit status 1)"


def test_bad_arguments() -> None:
    assert runner.main(["--only", "nonsense"]) == 2
    with pytest.raises(SystemExit):
        runner.main(["--no-such-flag"])


def test_format_value() -> None:
    assert runner.format_value(3.14159) == "3.14"
    assert runner.format_value(0.0421) == "0.0421"
    assert runner.format_value(123456.0) == "123456"
    assert runner.format_value("n/a (x)") == "n/a (x)"
    fig = runner.FIGURES[0]
    assert fig.met(10.0) == "yes" and fig.met(1.0) == "NO" and fig.met("n/a (x)") == "n/a"
    reported = runner.Figure("x_vs_y", "startup", None, False)  # shown, with no goal
    assert reported.goal_text() == "-" and reported.met(1.0) == "-" and reported.met("n/a") == "n/a"


def test_proxy_figures_come_from_one_run_each_way() -> None:
    from playground.bench.proxy import proxy_figures

    figures = proxy_figures(500, 30, 1, 1)
    _numbers(figures, "proxy_vs_direct", "proxy_events_s", "direct_events_s")
    ratio = figures["proxy_events_s"] / figures["direct_events_s"]  # type: ignore[operator]
    assert figures["proxy_vs_direct"] == pytest.approx(ratio)
    added = figures["proxy_added_ms_p99"]
    assert isinstance(added, float) and 0 <= added < 1000
    assert isinstance(figures["proxy_added_ms_p50"], float)
    assert [f.name for f in runner.FIGURES if f.group == "proxy"] == [
        "proxy_vs_direct",
        "proxy_added_ms_p99",
    ]


def test_eval_figures_run_the_grid_and_a_raw_client_on_the_same_requests() -> None:
    figures = runner.measure(["eval"], "tiny")
    _numbers(figures, "eval_vs_raw_client", "eval_cell_kib", "eval_frame_p99_ms")
    # The grid run in the Evaluate window: 2 cases x 3 variants x 3 repeats, all passed.
    assert figures["eval_streams"] == 18.0
    assert figures["eval_passed"] == 18.0
    ticks = figures["eval_frame_ticks"]
    assert isinstance(ticks, float) and ticks >= 1.0  # the lag timer fired while it ran
    _numbers(figures, "eval_frame_idle_p99_ms")
    grid = str(figures["eval_grid"])
    assert grid.startswith("2 cases x 3 variants x 3 repeats = 18 streams, concurrency 16")
    assert "realtime pace" in grid and "scaled down from 50 cases" in grid
    assert "eval" in runner.GROUPS and "eval" not in runner.DEFAULT_GROUPS
