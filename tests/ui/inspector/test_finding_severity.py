"""One severity per finding code: the status line counts a finding at the severity the inspector
shows it with, the one ``CODES`` declares, for every code."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pytestqt.qtbot import QtBot

from playground.protocol.findings import CODES, FindingSink
from playground.protocol.state import Finding
from playground.protocol.stream import StreamDecoder
from playground.ui.panels.status_feed import finding_counts
from playground.ui.panels.status_line import StatusLine, status_color

BAD_JSON_CHAT = (
    b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"Hi"}}]}\n\n'
    b"data: {not json\n\n"
    b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def _status_of(qtbot: QtBot, findings: list[Finding]) -> StatusLine:
    panel = SimpleNamespace(session=SimpleNamespace(state=SimpleNamespace(findings=findings)))
    errors, warnings = finding_counts(panel)  # type: ignore[arg-type]
    line = StatusLine()
    qtbot.addWidget(line)
    line.set_status("complete", warnings=warnings, errors=errors)
    return line


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_counted_at_the_severity_the_inspector_shows(qtbot: QtBot, code: str) -> None:
    findings: list[Finding] = []
    FindingSink(findings).report(code, "a finding", 0)
    declared = CODES[code][0]
    assert findings[0].severity == declared  # what the inspector's rows and tooltips show
    text = _status_of(qtbot, findings).status_text()
    expected = {"error": "complete · 1 error", "warning": "complete · 1 warning"}
    assert text == expected.get(declared, "complete")


def test_a_bad_json_event_is_an_error_in_the_inspector_and_on_the_status_line(
    qtbot: QtBot,
) -> None:
    decoder = StreamDecoder("chat")
    decoder.feed(BAD_JSON_CHAT, 0.1)
    decoder.finish(0.2)
    found = [(f.severity, f.code) for f in decoder.state.findings]
    assert found == [("error", "invalid_json")]
    line = _status_of(qtbot, decoder.state.findings)
    assert line.status_text() == "complete · 1 error"
    assert status_color("failed") in line.status.styleSheet()  # red, as the inspector's icon
