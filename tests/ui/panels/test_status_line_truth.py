"""The status line tells the truth: warnings in amber, silence counted live, no idle hint after."""

from __future__ import annotations

import asyncio
from typing import Any


def test_complete_with_an_error_finding_reads_red_and_a_click_shows_it(
    window: Any, qloop: Any, send_and_wait: Any, qtbot: Any
) -> None:
    from PySide6.QtCore import Qt

    from playground.ui.panels.status_line import status_color

    panel = window.show_panel("chat")
    panel.set_fault("bad-json")
    assert send_and_wait(panel) == "complete"
    findings = [f for f in panel.session.state.findings if f.severity != "info"]
    # The half-cut JSON line is an invalid_json finding: an error (its text is lost), as the
    # inspector shows it, so the line says "error", not "warning".
    assert [f.severity for f in findings] == ["error"] * len(findings) and findings
    n = len(findings)
    words = f"complete · {n} error{'s' if n != 1 else ''}"
    line = panel.status_line
    assert line.status.text() == f"● {words}"
    assert line.text().startswith(f"{words} · HTTP 200 · ")
    assert status_color("failed") in line.status.styleSheet()  # red, not green
    assert panel.dump_state()["status_line"] == line.text()
    lost = panel.views["answer"].lost  # the lost text is said, with the words it follows
    assert lost.isVisible() and "could not be read (bad JSON)" in lost.text()
    qtbot.mouseClick(line.status, Qt.MouseButton.LeftButton)
    qloop.sleep(0.05)
    selected = window.inspector.selected_item()
    assert selected is not None
    with_findings = {f.item for f in findings if f.item is not None}
    assert selected in with_findings


def test_a_clean_run_reads_plain_complete(window: Any, send_and_wait: Any) -> None:
    panel = window.show_panel("chat")
    assert send_and_wait(panel) == "complete"
    assert panel.status_line.status_text() == "complete"


def test_silence_is_counted_live_then_the_stall_banner_comes(window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    panel.session.stall_seconds = 3.5
    panel.set_fault("stall")
    # The picker's stall lasts past the setting: choosing it shows the banner.
    assert float(panel.sim_headers()["X-Sim-Stall-Seconds"]) > panel.session.stall_seconds
    seen: list[str] = []

    async def run() -> None:
        panel.send()
        while panel.session.is_running:
            seen.append(panel.status_line.status_text())
            if panel.banner.kind == "stall":
                break
            await asyncio.sleep(0.05)

    qloop.run(run(), 20)
    counts = [s for s in seen if "no bytes for" in s]
    assert counts and counts[0].startswith("streaming · no bytes for 2 s"), seen[-5:]
    assert any("no bytes for 3 s" in s for s in counts)
    assert panel.banner.kind == "stall" and panel.banner.isVisible()
    assert "Stop" in [b.text() for b in panel.banner.findChildren(type(panel.stop_button))]
    qloop.do(panel.stop)
    qloop.run(panel.session.wait(), 10)


def test_after_a_failure_no_idle_hint_follows_the_output(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel("chat")
    panel.set_fault("midstream-error")
    assert send_and_wait(panel) == "failed"
    assert panel.status_line.status_text() == "failed"
    pane = panel.views["answer"].pane(0)
    assert "Type a prompt" not in pane.text.placeholderText()
    assert "Type a prompt" not in window.statusBar().currentMessage()
    panel.set_fault("http-500")
    assert send_and_wait(panel) == "failed"
    assert "Type a prompt" not in panel.views["answer"].pane(0).text.placeholderText()


def test_a_narrow_line_hides_the_least_important_figures_first(qtbot: Any) -> None:
    from playground.ui.kit.layout_audit import overlaps
    from playground.ui.panels.status_line import StatusLine

    line = StatusLine()
    qtbot.addWidget(line)
    line.set_status("complete", warnings=2)
    line.set_figures(
        http_status=200,
        ttfb=0.012,
        ttft=0.130,
        tokens_per_s=220.5,
        elapsed=0.93,
        usage={"prompt_tokens": 9, "completion_tokens": 181},
    )
    full = "complete · 2 warnings · HTTP 200 · TTFB 12 ms · TTFT 130 ms · 220.5 tok/s · 0.93 s"
    assert line.text() == full + " · 9 in · 181 out"
    line.show()
    shown_at = {}
    for width in (900, 420, 330, 250, line.minimumSizeHint().width()):
        line.resize(width, line.minimumSizeHint().height())
        qtbot.wait(5)
        assert overlaps(line) == [], width
        shown_at[width] = [
            name
            for name in ("http", "elapsed", "rate", "ttft", "ttfb", "usage")
            if getattr(line, name).isVisible()
        ]
        assert line.text() == full + " · 9 in · 181 out"  # the tooltip's text stays whole
    assert shown_at[900] == ["http", "elapsed", "rate", "ttft", "ttfb", "usage"]
    importance = ["http", "elapsed", "rate", "ttft", "ttfb", "usage"]
    for shown in shown_at.values():
        assert shown == importance[: len(shown)]  # a prefix: what goes, goes least first
    assert shown_at[line.minimumSizeHint().width()] == []
    assert line.status.isVisible()


def test_gap_offsets_point_where_the_next_readable_text_begins() -> None:
    from playground.protocol.state import Finding, TextBuffer
    from playground.ui.views.lost_text import gap_offsets

    text = TextBuffer()
    text.append("Hello ", 3)
    text.append("big ", 4)
    text.append("world", 6)  # item 5 was the unreadable one
    bad = Finding("error", "invalid_json", "data is not JSON", 5)
    other = Finding("warning", "unknown_event", "unknown", 4)
    gaps = gap_offsets(text, [other, bad, bad])
    assert [gap.offset for gap in gaps] == [len("Hello big ")]
    assert "#5" in gaps[0].note and gaps[0].item == 5
    late = Finding("error", "invalid_json", "data is not JSON", 9)
    assert gap_offsets(text, [late])[0].offset == len("Hello big world")
