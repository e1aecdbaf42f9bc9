"""The window's views of hostile streams: JSON nested thousands deep lays out in text linear in
its size, and a flood of findings shows as "and N more" with every row keeping its badge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from playground.protocol.findings import RANK, STORED_PER_CODE
from playground.protocol.state import StreamState, ToolCallState
from playground.protocol.stream import StreamDecoder
from playground.ui.inspector.inspector import Inspector
from playground.ui.inspector.request_view import format_body
from playground.ui.views.json_stream import JsonPrettyStream
from playground.ui.views.tool_calls_view import ARGS_SHOWN_MAX, ToolCallsView

LEVELS = 3_000
# Each bracket makes at most one line of at most 16 levels of indent (32 spaces) and itself.
LINEAR = 40


@pytest.fixture(autouse=True)
def _no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_NO_AUDIO", "1")


def _deep(levels: int = LEVELS) -> str:
    return '{"a": ' * levels + "1" + "}" * levels


def test_a_deep_tool_call_lays_out_linear_in_its_size(qtbot: QtBot) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    arguments = _deep()
    call = ToolCallState(key=0, id="call_0", name="f")
    for n in range(0, len(arguments), 4096):  # streamed in pieces, as it arrives
        call.arguments.append(arguments[n : n + 4096], n)
        state.tool_calls = [call]
        view.refresh(state)
    text = view.cards[0].text
    assert text.count('"a"') == LEVELS
    assert len(text) <= LINEAR * len(arguments)


def test_a_card_shows_a_bounded_part_of_huge_arguments(qtbot: QtBot) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    call = ToolCallState(key=0, id="call_0", name="f")
    piece = "[" * 4096
    for n in range(512):  # 2 MB of brackets, streamed: one line past 16 levels
        call.arguments.append(piece, n)
        state.tool_calls = [call]
        view.refresh(state)
    card = view.cards[0]
    assert card.args.document().characterCount() <= ARGS_SHOWN_MAX + 200
    assert card.text.startswith("[\n  [") and "the arguments go on" in card.text
    assert len(call.arguments) == 512 * 4096  # the state keeps them whole
    # A card's own parts of the arguments are what a short call shows in full.
    short = ToolCallState(key=1, id="call_1", name="g")
    short.arguments.append('{"a": [1, 2]}', 0)
    state.tool_calls = [call, short]
    view.refresh(state)
    assert json.loads(view.cards[1].text) == {"a": [1, 2]}


def test_the_pretty_printer_stops_indenting_past_its_levels() -> None:
    small, big = _deep(1_000), _deep(4_000)
    out_small, out_big = JsonPrettyStream().feed(small), JsonPrettyStream().feed(big)
    assert len(out_big) / len(big) <= LINEAR and len(out_big) < 5 * len(out_small)
    widest = max(len(line) - len(line.lstrip(" ")) for line in out_big.splitlines())
    assert widest == 32
    # Past 16 levels nothing starts a line: a document's lines (what a text view pays most
    # for, about 1 KB each) do not grow with the nesting either.
    assert out_big.count("\n") == out_small.count("\n") <= 40


def test_a_deep_request_body_lays_out_linear_in_its_size() -> None:
    body = ('{"model": "m", "x": ' + _deep() + "}").encode()
    text = format_body(body)
    assert len(text) <= LINEAR * len(body)
    deeper = ("[" * 5_000 + "]" * 5_000).encode()  # past the reader's limit: shown as text
    assert len(format_body(deeper)) <= LINEAR * len(deeper)


def test_the_inspector_says_how_many_findings_it_counted_and_marks_every_row(
    qtbot: QtBot,
) -> None:
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(900, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    events = 3_000
    decoder = StreamDecoder("chat")
    inspector.attach(decoder)
    data = b"data:x\n\n" * events
    for i in range(0, len(data), 8192):
        inspector.append(decoder.feed(data[i : i + 8192], i / 1e6))
    inspector.append(decoder.finish(1.0))
    more = events - STORED_PER_CODE
    assert f"and {more:,} more" in inspector.count_label.text()
    model = inspector.model
    assert model.worst_finding(0) == RANK["error"]  # a stored finding
    assert model.worst_finding(events - 2) == RANK["error"]  # one only counted
    assert [f.code for f in model.findings_of(events - 2)] == []
    # The rows are the decoder's own items, most of them folded into one run: each row is there.
    assert model.shares_decoder_items and decoder.items.folded > 0
    assert model.rowCount() == len(decoder.items) == events
    last = model.item(events - 1)
    assert (last.index, last.start, last.raw) == (events - 1, 8 * (events - 1), b"data:x\n\n")
    assert model.type_name(events - 1) == model.type_name(0)
    # An inspector that follows the run afterwards takes the decoder's items as they are.
    later = Inspector()
    qtbot.addWidget(later)
    later.attach(decoder)
    later.append(decoder.items)
    assert later.model.shares_decoder_items and later.model.rowCount() == events
    assert later.model.worst_finding(events - 1) == RANK["error"]


def test_the_headless_dump_reads_tool_arguments_nested_20000_deep(tmp_path: Path) -> None:
    """The window's --dump-state on a replay whose tool call nests 20,480 brackets deep."""
    from headless_helpers import run_headless_batch

    deep = Path(__file__).resolve().parents[2] / "hostile" / "deep.sse"
    (run,) = run_headless_batch(
        tmp_path, [("--route", "chat", "--replay", str(deep), "--speed", "0")], parallel=1
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Traceback" not in run.stderr and run.dump is not None
    text = json.dumps(run.dump)
    assert "json_too_deep" in text and "[" * 4096 in text
