"""Each route's panel on the real simulator: the widgets show what the stream carried."""

from __future__ import annotations

import json
from typing import Any

import pytest
from panel_helpers import sim_panel

from playground.protocol.stream import StreamDecoder

_panel = sim_panel


def carried(panel: Any) -> StreamDecoder:
    """An independent decode of the bytes the run received (what the stream carried)."""
    run = panel.session.run
    decoder = StreamDecoder(panel.route)
    decoder.set_content_type(run.header("content-type"))
    for t, data in run.chunks:
        decoder.feed(data, t)
    decoder.finish(run.t_end or 0.0)
    return decoder


def shown(live: Any) -> str:
    """The text a LiveText shows: its raw source once rendered as Markdown, else its plain text."""
    text: str = live._source if live.rendered else live.toPlainText()
    return text


@pytest.mark.parametrize("route", ["chat", "responses", "messages"])
def test_text_routes_show_text_reasoning_and_tool_calls(
    route: str, qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel(route, sim)
    if route == "messages":
        panel.editor.thinking.setValue(2048)
    else:
        panel.editor.effort.setCurrentIndex(panel.editor.effort.findData("low"))
    assert send_and_wait(panel) == "complete"
    truth = carried(panel).state
    answer = panel.widgets["answer"].pane(0)
    assert truth.text and shown(answer.text) == truth.text
    assert truth.reasoning and shown(panel.widgets["thinking"].text) == truth.reasoning
    assert panel.widgets["thinking"].isVisibleTo(panel)
    assert not panel.widgets["tools"].isVisibleTo(panel)  # nothing for it: hidden
    assert panel.status_line.status.text().endswith("complete")
    assert "HTTP 200" in panel.status_line.http.text()
    assert panel.status_line.ttft.text().startswith("TTFT")
    assert panel.dump_state()["text"] == truth.text
    assert panel.dump_state()["timeline_rows"] == len(panel.session.decoder.items)

    # Now with the sample tool: the call's name and arguments as streamed.
    panel.editor.use_tools.setChecked(True)
    panel.editor.tool_choice.setCurrentText("required")
    panel.editor.set_prompt("What is the weather like in Paris today?")  # the next turn
    assert send_and_wait(panel) == "complete"
    truth = carried(panel).state
    assert truth.tool_calls
    view = panel.widgets["tools"]
    assert view.isVisibleTo(panel)
    dump = panel.dump_state()["tool_calls"]
    assert [c["name"] for c in dump] == [c.name for c in truth.tool_calls]
    assert [json.loads(c["arguments"]) for c in dump] == [
        json.loads(c.arguments_text) for c in truth.tool_calls
    ]
    cards = view.findChildren(type(view.cards[0])) if hasattr(view, "cards") else []
    if cards:
        assert all(card.valid_json for card in cards)


def test_images_panel_shows_every_partial_and_the_final(
    qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel("images", sim, "sim-image")
    panel.editor.partial_images.setValue(2)
    panel.editor.image_size.setCurrentIndex(panel.editor.image_size.findData("256x256"))
    assert send_and_wait(panel) == "complete"
    truth = carried(panel).state
    assert len(truth.images) == 3 and truth.images[-1].final
    view = panel.widgets["images"]
    assert view.strip.count() == len(truth.images)
    assert len(panel.dump_state()["images"]) == 3


def test_speech_panel_shows_the_audio_seconds(qloop: Any, sim: Any, send_and_wait: Any) -> None:
    panel = _panel("speech", sim, "sim-tts")
    panel.editor.set_prompt("Short and sweet.")
    assert send_and_wait(panel) == "complete"
    truth = carried(panel).state
    assert truth.audio is not None and truth.audio.seconds > 0.3
    view = panel.widgets["audio"]
    assert abs(view.seconds - truth.audio.seconds) < 0.01
    assert panel.dump_state()["audio_seconds"] == pytest.approx(truth.audio.seconds, abs=0.01)


def test_transcription_panel_transcribes_the_shipped_sample(
    qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel("transcription", sim, "sim-transcribe")
    assert send_and_wait(panel) == "complete"
    truth = carried(panel).state
    expected = "Hello from the playground. This sentence was spoken by the simulator."
    assert truth.text == expected
    assert panel.widgets["transcript"].shown_text == expected


def test_music_panel_plays_the_job_stream(qloop: Any, sim: Any, send_and_wait: Any) -> None:
    panel = _panel("music", sim, "sim-music")
    panel.editor.duration.setValue(2.0)
    assert send_and_wait(panel) == "complete"
    state = panel.session.state
    assert state.audio is not None and state.audio.seconds == pytest.approx(2.0, abs=0.1)
    # The run is the job (its progress events in the timeline); the song streamed beside it.
    assert panel.session.run.method == "POST" and panel.session.run.url.endswith("/music")
    assert panel.session.decoder.items and panel.widgets["music"].progress.value() == 100
    assert panel.dump_state()["audio_seconds"] == pytest.approx(2.0, abs=0.1)


@pytest.mark.parametrize(
    ("fault", "status", "needle"),
    [
        ("http-400", "failed", "HTTP 400"),
        ("http-401", "failed", "HTTP 401"),
        ("http-404", "failed", "HTTP 404"),
        ("http-429", "failed", "HTTP 429"),
        ("http-500", "failed", "HTTP 500"),
        ("http-503", "failed", "HTTP 503"),
        ("midstream-error", "failed", "simulated mid-stream error"),
        ("incomplete", "incomplete", "Incomplete"),
        ("drop", "truncated", "Truncated"),
        ("bad-json", "complete", ""),
        ("unknown-events", "complete", ""),
    ],
)
def test_each_fault_shows_its_message(
    fault: str, status: str, needle: str, qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel("chat", sim, "sim-chat")
    panel.set_fault(fault)
    assert send_and_wait(panel) == status
    banner = panel.banner
    if needle:
        assert not banner.isHidden() and needle in banner.text
    else:
        assert banner.isHidden()
        if fault == "bad-json":  # the damage is a finding on its row, not a banner
            assert any(f.code == "invalid_json" for f in panel.session.state.findings), [
                f.code for f in panel.session.state.findings
            ]
    if fault in ("http-429", "http-503"):
        assert banner.retry.isVisibleTo(panel) and not banner.retry.isEnabled()
        assert banner.remaining >= 1  # Retry-After counts down
    if fault == "midstream-error":
        assert panel.widgets["answer"].incomplete_marked  # the partial output stays, marked


def test_retry_after_countdown_enables_retry(qloop: Any, sim: Any, send_and_wait: Any) -> None:
    panel = _panel("chat", sim, "sim-chat")
    panel.set_fault("http-429")
    send_and_wait(panel)
    assert not panel.banner.retry.isEnabled()
    qloop.wait_until(lambda: panel.banner.retry.isEnabled(), timeout=3.0)
    panel.set_fault("none")
    # Retry sends the request built from the form as it is now: the fault changed, so it goes.
    qloop.do(panel.banner.retry.click)
    assert "no fault" in panel.banner.text  # said on the turn while it goes
    assert qloop.run(panel.session.wait()) == "complete"
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]


@pytest.mark.parametrize(
    ("route", "model"),
    [
        ("responses", "sim-chat"),
        ("messages", "sim-chat"),
        ("images", "sim-image"),
        ("speech", "sim-tts"),
        ("transcription", "sim-transcribe"),
    ],
)
def test_midstream_error_on_every_route_keeps_the_partial_output(
    route: str, model: str, qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel(route, sim, model)
    panel.set_fault("midstream-error")
    if route == "images":
        panel.editor.image_size.setCurrentIndex(panel.editor.image_size.findData("256x256"))
    assert send_and_wait(panel) == "failed"
    state = panel.session.state
    assert state.error is not None and state.error.message
    assert "failed after it started" in panel.banner.text
    assert state.error.message.rstrip(".") in panel.banner.text
    assert panel.dump_state()["error"]["message"] == state.error.message


def test_http_error_shows_the_envelope_before_the_stream(
    qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel("messages", sim, "sim-chat")
    panel.set_fault("http-401")
    assert send_and_wait(panel) == "failed"
    dump = panel.dump_state()
    assert dump["error"]["status"] == 401
    assert dump["error"]["message"] in panel.banner.text
    assert not panel.banner.retry.isVisibleTo(panel)  # a wrong key is not fixed by retrying
    assert not panel.widgets["answer"].has_content()


def test_stall_shows_a_banner_with_stop_and_clears_when_bytes_resume(
    qloop: Any, sim: Any, send_and_wait: Any
) -> None:
    panel = _panel("chat", sim, "sim-chat")
    panel.session.stall_seconds = 0.5
    panel.set_fault("stall")  # the simulator goes quiet for a few seconds, then goes on
    seen: list[str] = []

    def watch() -> None:
        if panel.banner.kind == "stall" and not panel.banner.isHidden():
            seen.append(panel.banner.text)

    panel.session.stalled.connect(lambda _s: watch())
    assert send_and_wait(panel) == "complete"
    assert seen and "stalled" in seen[0]
    assert panel.banner.stop.isVisibleTo(panel) or panel.banner.isHidden()
    assert panel.banner.kind != "stall"  # bytes came back: the stall banner went away


def test_fault_picker_names_every_simulator_fault_without_loading_the_simulator() -> None:
    import subprocess
    import sys

    # The picker lists the simulator's own names; loading them must not pull in starlette
    # (startup), which the simulator module itself needs.
    code = (
        "import sys; import playground.ui.panels.route_panel as rp; "
        "from playground.sim.fault_names import FAULTS; "
        "assert tuple(rp.SIM_FAULTS) == FAULTS and 'midstream-error' in FAULTS; "
        "assert 'starlette' not in sys.modules, 'starlette loaded'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    from playground.sim.fault_names import FAULTS

    assert "stall" in FAULTS and "http-429" in FAULTS
