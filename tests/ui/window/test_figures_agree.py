"""One time to first token across views: a replayed capture whose thinking comes before its
text shows the same TTFT on the status line, the Timing view, Compare, the Traffic panel and
`playground inspect`, named the same, from one definition (protocol/figures.py); and a rate
shown while Messages streams is the rate of what has streamed."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from playground.cli.inspect import _figures, decode_capture, decode_file
from playground.protocol.capture import read_capture
from playground.protocol.figures import BY_KEY, figure_values, first_token
from playground.protocol.stream import StreamDecoder
from playground.protocol.timing import compute_timing
from playground.protocol.timing_format import format_seconds
from playground.runs.outcome import tokens_per_second
from playground.ui.compare.diff import figures_html
from playground.ui.docks.timing import timing_of_session
from playground.ui.docks.traffic.table import COLUMNS, cells

ROOT = Path(__file__).resolve().parents[3]
CAPTURE = ROOT / "resources" / "captures" / "messages.capture.jsonl"


def test_every_view_shows_the_same_time_to_first_token(window: Any, qloop: Any) -> None:
    window.open_capture(str(CAPTURE))
    panel = window.current_panel()
    qloop.run(panel.session.wait(), 15)
    qloop.sleep(0.2)
    timing = timing_of_session(panel.session)
    assert timing is not None
    values = figure_values(timing)
    ttft = values["first_token"]
    # The capture thinks first: the first token is its thinking, before the first answer text
    # (the Timing view once said the latter "to first token" while the status line said the
    # former).
    assert ttft is not None and values["first_answer"] is not None
    assert values["first_thinking"] is not None
    assert ttft == values["first_thinking"] < values["first_answer"]
    shown = format_seconds(ttft)

    assert panel.session.run.t_first_token == ttft
    assert panel.status_line.ttft.text() == f"TTFT {shown}"
    assert panel.status_line.ttft.toolTip() == BY_KEY["first_token"].tip

    # The output rate: one figure too, written alike.
    rate = timing.output_tokens_per_second
    assert rate is not None
    assert panel.status_line.rate.text() == f"{rate:.1f} tok/s"
    assert f"<b>{rate:.1f}</b> tok/s" in figures_html(timing)

    view = window.docks.timing_view
    view.set_timing(timing)
    assert f"<b>{rate:.1f}</b> tok/s" in view.summary.text()
    assert f"<b>{shown}</b> to first token" in view.summary.text()
    answer = format_seconds(values["first_answer"])
    assert f"<b>{answer}</b> to first answer token" in view.summary.text()

    assert f"first token <b>{shown}</b>" in figures_html(timing)

    ex = SimpleNamespace(
        t_end=None,
        method="POST",
        route="messages",
        path="/v1/messages",
        facts=SimpleNamespace(model="m"),
        http_status=200,
        bytes=1,
    )
    entry = SimpleNamespace(
        ex=ex, session=panel.session, started=0.0, findings=0, status="complete"
    )
    assert cells(entry)[COLUMNS.index("TTFT")] == shown  # type: ignore[arg-type]

    # inspect reads the capture's own arrival times: the same figure, by the same name.
    capture = read_capture(CAPTURE.read_bytes())
    assert f"first token {shown}" in _figures(capture, decode_capture(capture))


def test_the_proxy_and_inspect_use_the_one_definition() -> None:
    data = CAPTURE.read_bytes()
    decoder = decode_file(data)
    timing = compute_timing(decoder)
    assert first_token(timing) == min(
        t for t in (timing.t_first_reasoning, timing.t_first_text, timing.t_first_tool_args) if t
    )


MESSAGES_HEAD = (
    b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":'
    b'"message","role":"assistant","content":[],"model":"m","stop_reason":null,'
    b'"usage":{"input_tokens":10,"output_tokens":1}}}\n\n'
    b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"text","text":""}}\n\n'
)


def _delta(n: int) -> bytes:
    return (
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"w%d "}}\n\n' % n
    )


def test_the_rate_while_messages_streams_is_the_rate_of_what_streamed() -> None:
    decoder = StreamDecoder("messages")
    decoder.feed(MESSAGES_HEAD, 0.1)
    for n in range(30):  # 30 deltas over 1 s: 30 tok/s so far
        decoder.feed(_delta(n), 1.0 + n / 29)
    state = decoder.state
    assert state.status == "streaming" and state.usage is not None  # message_start's usage
    mid = tokens_per_second(state, 1.0, 2.0)
    assert mid is not None and 29 <= mid <= 31  # not 1 token over 1 s
    text = compute_timing(decoder).channels["text"]
    assert text.tokens_per_second is not None and text.tokens_per_second > 25
