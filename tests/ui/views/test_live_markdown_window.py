"""The real window on the simulator: the answer is rendered as Markdown while it streams."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication, QTextCursor, QTextTable

PROMPT = "Write a Python function that keeps prime numbers, and compare the options in a table"


def _answer_text(panel: Any) -> Any:
    return panel.widgets["answer"].pane(0).text


def _headings(doc: Any) -> list[tuple[int, str]]:
    out = []
    block = doc.begin()
    while block.isValid():
        level = block.blockFormat().headingLevel()
        if level:
            out.append((level, block.text()))
        block = block.next()
    return out


def _code_lines(doc: Any) -> list[Any]:
    """Blocks that are code: monospace lines that never wrap."""
    out = []
    block = doc.begin()
    while block.isValid():
        if block.blockFormat().nonBreakableLines():
            out.append(block)
        block = block.next()
    return out


def _colours(block: Any) -> set[str]:
    colours = set()
    it = block.begin()
    while not it.atEnd():
        fragment = it.fragment()
        if fragment.text().strip():
            colours.add(fragment.charFormat().foreground().color().name())
        it += 1
    return colours


def _tables(doc: Any) -> list[QTextTable]:
    return [f for f in doc.rootFrame().childFrames() if isinstance(f, QTextTable)]


def _cells(table: QTextTable) -> list[list[str]]:
    rows = []
    for r in range(table.rows()):
        row = []
        for c in range(table.columns()):
            cell = table.cellAt(r, c)
            cursor = cell.firstCursorPosition()
            cursor.setPosition(
                cell.lastCursorPosition().position(), QTextCursor.MoveMode.KeepAnchor
            )
            row.append(cursor.selectedText())
        rows.append(row)
    return rows


def test_headings_code_and_tables_render_mid_stream_and_stay_at_the_end(
    window: Any, qloop: Any
) -> None:
    panel = window.show_panel("chat")
    panel.set_pace("12")  # ms per token: a few seconds, time to look while it streams
    panel.editor.set_prompt(PROMPT)

    def ended() -> bool:
        state = panel.session.state
        return state is not None and state.status != "streaming"

    def streaming() -> bool:
        return not ended()

    def closed_kinds() -> list[str]:
        live = _answer_text(panel).live_markdown
        return [s.block.kind for s in live.closed] if live is not None else []

    qloop.do(panel.send)
    # Mid-stream: the fenced code has closed, the answer goes on.
    qloop.wait_until(lambda: "fence" in closed_kinds() or ended(), 30)
    assert streaming(), "the stream ended before its code block closed"
    text = _answer_text(panel)  # a new run's pane (the view resets per run)
    doc = text.document()
    levels = _headings(doc)
    assert levels and levels[0][0] == 2  # "## Title" is a heading, not "##" text
    assert "##" not in doc.toPlainText() and "```" not in doc.toPlainText()
    code = _code_lines(doc)
    head = code[0]
    assert head.text().startswith("python") and "Copy" in head.text()
    body = [b for b in code[1:] if b.text().startswith("def ")]
    assert body, [b.text() for b in code]
    assert len(_colours(body[0])) >= 2  # highlighted: `def` and the name differ in colour
    fmt = body[0].begin().fragment().charFormat()
    assert fmt.fontFixedPitch()
    # Mid-stream still: the table has closed, the last paragraph streams.
    qloop.wait_until(lambda: "table" in closed_kinds() or ended(), 30)
    assert streaming(), "the stream ended before its table closed"
    tables = _tables(doc)
    assert len(tables) == 1
    cells = _cells(tables[0])
    assert cells[0] == ["Topic", "Approach", "Strength", "Watch out for"]
    assert len(cells) == 4 and cells[1][1] == "start small"
    assert all("|" not in cell for row in cells for cell in row)
    # The header row is aligned like its column (the delimiter row said right for the last).
    last = tables[0].columns() - 1
    align = [
        tables[0].cellAt(r, last).firstCursorPosition().blockFormat().alignment() for r in (0, 1)
    ]
    assert align[0] == align[1]

    qloop.wait_until(ended, 30)
    qloop.wait_until(lambda: not text.pending, 5)
    assert panel.session.state.status == "complete"
    # At the end: the same document as rendering the whole answer at once (no jump, no loss).
    from playground.ui.views.live_text import LiveText

    whole = LiveText(markdown=True)
    whole.show_text(panel.session.state.text)
    whole.flush()
    assert whole.document().toPlainText() == doc.toPlainText()
    assert _headings(whole.document()) == _headings(doc)
    assert _cells(_tables(whole.document())[0]) == _cells(_tables(doc)[0])
    dumped = panel.dump_state()
    assert "<table" in dumped["answer_html"] and "copy:" in dumped["answer_html"]
    assert dumped["answer_html"] == doc.toHtml()

    # The Copy link copies the code, fences and all left out.
    href = f"copy:{text.live_markdown.closed[closed_kinds().index('fence')].block.group}"
    text.follow_link(href)
    copied = QGuiApplication.clipboard().text()
    assert copied.startswith("def ") and "```" not in copied and "return" in copied


def test_clicking_a_rendered_word_selects_its_event_and_links_open_in_the_browser(
    window: Any, qloop: Any, send_and_wait: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = window.show_panel("chat")
    panel.editor.set_prompt("Explain streaming with a table")
    assert send_and_wait(panel) == "complete"
    text = _answer_text(panel)
    qloop.wait_until(lambda: not text.pending, 5)
    plain = text.toPlainText()
    found = text.document().find("Approach")  # in the table's header row
    assert not found.isNull()
    item = text.item_at_position(found.selectionStart() + 2)
    assert item is not None
    carried = panel.session.decoder.items[item]
    assert "Approach" in carried.raw.decode() or "Appro" in carried.raw.decode()
    panel.widgets["answer"].highlight_item(item)
    marks = [s.cursor.selectedText() for s in text.extraSelections()]
    assert marks and all(m and m in plain for m in marks)

    opened: list[str] = []
    import playground.ui.views.live_text as live_text

    monkeypatch.setattr(live_text, "open_url", lambda url: opened.append(url.toString()))
    text.follow_link("https://example.org/docs")
    text.follow_link("file:///etc/passwd")  # only web links leave the program
    assert opened == ["https://example.org/docs"]


def test_a_long_answer_renders_without_a_cap_and_the_window_keeps_ticking(
    window: Any, qloop: Any
) -> None:
    from playground.ui.views.live_text import LiveText

    body = "".join(
        f"## Part {n}\n\nSome **words** for part {n}.\n\n- one\n- two\n\n```py\nx = {n}\n```\n\n"
        for n in range(3000)
    )
    assert len(body) > 200_000
    view = LiveText(markdown=True)
    view.resize(600, 400)
    view.show()
    ticks: list[float] = []

    async def watch() -> None:
        loop = asyncio.get_running_loop()
        started = loop.time()
        view.show_text(body)  # a History answer: rendered in slices, not in one go
        last = loop.time()
        while view.pending and loop.time() - started < 60:
            await asyncio.sleep(0.005)
            now = loop.time()
            ticks.append(now - last)
            last = now

    qloop.run(watch(), 90)
    assert not view.pending
    assert len(_headings(view.document())) == 3000
    assert "Part 2999" in view.toPlainText()
    ticks.sort()
    assert ticks and ticks[len(ticks) * 9 // 10] < 0.1  # the loop kept running between slices


def test_dump_state_has_the_answer_html(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PLAYGROUND_SETTINGS"] = str(tmp_path / "settings.ini")
    env["PLAYGROUND_DATA_DIR"] = str(tmp_path / "data")
    out = tmp_path / "state.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "--route",
            "chat",
            "--prompt",
            "Write a Rust function that sums a list",
            "--pace",
            "instant",
            "--dump-state",
            str(out),
            "--exit-when-done",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads(out.read_text())
    html = state["answer_html"]
    assert html.startswith("<!DOCTYPE HTML") and "rust" in html and "copy:" in html
    assert "```" not in html and "##" not in html
    assert "<table" not in html  # no table asked for, none given
