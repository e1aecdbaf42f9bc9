"""Text lost to an unreadable event is marked where it was lost, in the rendered Markdown."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtGui import QTextTable

from playground.protocol.state import TextBuffer
from playground.ui.views.gap_marks import GLYPH, Gap
from playground.ui.views.live_text import LiveText

SOURCE = (
    "## Title here\n\nSome text **bold** here.\n\n| a | b |\n|---|---|\n| x | y |\n\n"
    "- one\n- two\n\n```py\ndef f():\n    pass\n```\nend"
)


def _streamed(qapp: Any, cut: int, source: str = SOURCE) -> LiveText:
    """``source`` streamed with an unreadable event at ``cut``, marked as the answer view does:
    before the text after it is fed."""
    view = LiveText(markdown=True)
    buffer = TextBuffer()
    buffer.append(source[:cut], 0)
    view.sync(buffer)
    view.mark_gap(Gap(cut, 1, "event #1: data is not JSON"))
    if cut < len(source):
        buffer.append(source[cut:], 2)
        view.sync(buffer)
    view.render_markdown()
    view.flush()
    return view


def _around(plain: str) -> tuple[str, str]:
    at = plain.index(GLYPH)
    return plain[:at], plain[at + 1 :]


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


@pytest.mark.parametrize(
    "cut",
    [3, 20, 35, len("## Title here\n\nSome text **bold** here.\n\n| a "), 80, 95, len(SOURCE)],
)
def test_the_mark_sits_between_the_words_before_and_after_the_lost_event(
    qapp: Any, cut: int
) -> None:
    view = _streamed(qapp, cut)
    plain = view.document().toPlainText()
    assert plain.count(GLYPH) == 1
    before, after = _around(plain)
    assert _words(before)[-1:] == _words(SOURCE[:cut].replace("py\n", ""))[-1:]
    assert _words(after)[:1] == _words(SOURCE[cut:])[:1]


def test_a_mark_keeps_the_block_s_markup_a_heading_a_table_and_code(qapp: Any) -> None:
    heading = _streamed(qapp, 0)  # before "## ": the mark goes after the markup
    first = heading.document().begin()
    assert first.blockFormat().headingLevel() == 2 and first.text() == GLYPH + "Title here"
    delimiter = SOURCE.index("|---")
    table = _streamed(qapp, delimiter)  # on the delimiter row: in the header's last cell
    tables = [f for f in table.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert len(tables) == 1 and tables[0].columns() == 2
    cell = tables[0].cellAt(0, 1)
    assert GLYPH in cell.firstCursorPosition().block().text()
    code = _streamed(qapp, SOURCE.index("f():"))
    live = code.live_markdown
    assert live is not None
    fence = next(s for s in live.closed if s.block.kind == "fence")
    assert GLYPH in code._plain(fence)
    assert live.code_of(fence.block.group) == "def f():\n    pass"  # Copy copies no mark


def test_the_mark_says_what_was_lost_and_a_click_selects_the_event(qapp: Any) -> None:
    view = _streamed(qapp, 20)
    found = view.document().find(GLYPH)
    fmt = found.charFormat()
    assert fmt.toolTip() == "An event here could not be read: event #1: data is not JSON"
    assert fmt.anchorHref() == "lost:1"
    assert 'href="lost:1"' in view.document().toHtml()
    got: list[int] = []
    view.activated.connect(got.append)
    view.follow_link("lost:1")
    assert got == [1]


def test_a_closed_block_is_rendered_once_with_its_mark(qapp: Any) -> None:
    view = LiveText(markdown=True)
    rendered: list[tuple[int, bool]] = []
    live = view._live()
    insert = live.renderer.insert

    def spy(cursor: Any, block: Any, first: bool, gaps: Any = ()) -> None:
        rendered.append((block.start, bool(gaps)))
        insert(cursor, block, first, gaps)

    live.renderer.insert = spy  # type: ignore[method-assign]
    live.throttle = False
    buffer = TextBuffer()
    text = "First paragraph here.\n\nSecond one "
    buffer.append(text, 0)
    view.sync(buffer)
    view.mark_gap(Gap(len(text), 1, "lost"))  # in the open block
    for n, word in enumerate(["goes ", "on.\n\n", "Third ", "block.\n\n", "Fourth"]):
        buffer.append(word, n + 2)
        view.sync(buffer)
        assert view.document().toPlainText().count(GLYPH) == 1  # mid-stream, at every frame
    second = text.index("Second")
    closed = [start for start, _gaps in rendered if start < second]
    assert closed == [0]  # the first block: once, never again for the mark
    assert len(live.closed) == 3 and live.marked == [Gap(len(text), 1, "lost")]
    before, after = _around(view.document().toPlainText())
    assert before.endswith("Second one ") and after.startswith("goes on.")


def test_a_mark_after_the_last_block_goes_at_the_end(qapp: Any) -> None:
    source = "Just one paragraph.\n\n"
    view = _streamed(qapp, len(source), source)
    plain = view.document().toPlainText()
    assert plain == "Just one paragraph." + GLYPH


def _source_words(panel: Any, gap: Gap) -> tuple[list[str], list[str]]:
    text = panel.session.state.choices[0].text.value
    return _words(text[: gap.offset]), _words(text[gap.offset :])


def test_on_the_simulator_the_answer_marks_the_bad_event_mid_stream_and_at_the_end(
    window: Any, qloop: Any
) -> None:
    panel = window.show_panel("chat")
    panel.editor.set_model("sim-chat")  # no thinking: the cut event carried answer text
    panel.set_fault("bad-json")
    panel.set_pace("12")  # ms per token: time to look while it streams
    panel.editor.set_prompt("Write a Python function that sums a list, with a table of options")
    qloop.do(panel.send)
    answer = panel.widgets["answer"]

    def marked() -> bool:
        live = answer.pane(0).text.live_markdown
        return live is not None and bool(live.marked)  # in a closed block: final

    qloop.wait_until(lambda: marked() or panel.session.state.status != "streaming", 30)
    assert panel.session.state.status == "streaming", "the stream ended before the mark closed"
    text = answer.pane(0).text
    gap = text.live_markdown.marked[0]
    plain = text.document().toPlainText()
    assert plain.count(GLYPH) == 1
    before, after = _around(plain)
    words_before, words_after = _source_words(panel, gap)
    assert _words(before)[-1] == words_before[-1] and _words(after)[0] == words_after[0]
    assert answer.lost.isVisible() and "where ⚠ marks it" in answer.lost.text()

    qloop.wait_until(lambda: panel.session.state.status != "streaming", 30)
    qloop.wait_until(lambda: not text.pending, 5)
    assert panel.session.state.status == "complete"
    plain = text.document().toPlainText()
    assert plain.count(GLYPH) == 1 and _around(plain)[0] == before  # the closed block kept it
    html = panel.dump_state()["answer_html"]
    assert html.count(f'href="lost:{gap.item}"') == 1 and GLYPH in html
    finding = next(f for f in panel.session.state.findings if f.code == "invalid_json")
    assert finding.item == gap.item
    text.follow_link(f"lost:{gap.item}")  # the mark's link selects the event it stands for
    qloop.sleep(0.05)
    assert window.inspector.selected_item() == gap.item


def test_a_lost_thinking_delta_is_marked_in_the_thinking_not_the_answer(
    window: Any, send_and_wait: Any, qloop: Any
) -> None:
    panel = window.show_panel("chat")
    panel.editor.set_model("sim-reasoner")  # the cut (7th content) event is a thinking delta
    panel.set_fault("bad-json")
    panel.editor.set_prompt("Explain streaming")
    assert send_and_wait(panel) == "complete"
    thinking = panel.widgets["thinking"].text
    answer = panel.widgets["answer"].pane(0).text
    qloop.wait_until(lambda: not thinking.pending and not answer.pending, 5)
    assert GLYPH not in answer.document().toPlainText()
    plain = thinking.document().toPlainText()
    assert plain.count(GLYPH) == 1
    gap = thinking.live_markdown.marked[0]
    reasoning = panel.session.state.choices[0].reasoning.value
    before, after = _around(plain)
    assert _words(before)[-1] == _words(reasoning[: gap.offset])[-1]
    assert _words(after)[0] == _words(reasoning[gap.offset :])[0]
