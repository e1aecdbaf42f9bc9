"""Live Markdown at full speed: rendering by time with a plain tail, batched closed blocks."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

import playground.ui.views.markdown_doc as markdown_doc
from playground.protocol.state import TextBuffer
from playground.ui.views.answer_view import AnswerView
from playground.ui.views.live_text import LiveText

PROSE = "".join(
    f"## Part {k}\n\nSome **bold** text and `code` in part {k}, with a [link](https://x.test).\n\n"
    f"Setext {k}\n===\n\nA second paragraph\nover two lines.\n\n"
    for k in range(40)
)


def _view(qtbot: QtBot) -> LiveText:
    view = LiveText(markdown=True)
    qtbot.addWidget(view)
    view.resize(800, 600)
    return view


def test_text_between_render_steps_shows_at_once_as_plain_text(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append("Intro with **bold** words.\n\n", 0)
    view.sync(buffer)  # the first step renders at once
    live = view.live_markdown
    assert live is not None
    assert "**" not in view.document().toPlainText()
    buffer.append("## Next heading\n\nMore **strong** end", 1)
    view.sync(buffer)  # within the interval: shown, not rendered yet
    assert view.document().toPlainText().endswith("## Next heading\n\nMore **strong** end")
    assert live.pending
    qtbot.waitUntil(lambda: not view.pending, timeout=3000)  # the timer renders it
    plain = view.document().toPlainText()
    assert "##" not in plain and "**" not in plain
    assert plain.endswith("Next heading\nMore strong end")
    assert [s.block.kind for s in live.closed] == ["paragraph", "heading"]
    assert view.document().findBlockByNumber(1).blockFormat().headingLevel() == 2


def test_a_tail_after_a_closed_block_starts_its_own_line(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append("First paragraph.\n\n", 0)
    view.sync(buffer)
    buffer.append("Second", 1)
    view.sync(buffer)
    assert view.document().toPlainText() == "First paragraph.\nSecond"
    qtbot.waitUntil(lambda: not view.pending, timeout=3000)
    assert view.document().toPlainText() == "First paragraph.\nSecond"


def test_batched_blocks_render_exactly_as_one_at_a_time(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.views.markdown_render import BlockRenderer

    batches: list[int] = []
    batch = BlockRenderer.batch

    def counted(self: BlockRenderer, blocks: list, *, leading: bool) -> object:  # type: ignore[type-arg]
        got = batch(self, blocks, leading=leading)
        batches.append(len(blocks) if got is not None else 0)
        return got

    monkeypatch.setattr(BlockRenderer, "batch", counted)
    # Every block through md4c here (plain blocks skip it: test_plain_prose.py).
    monkeypatch.setattr(markdown_doc, "plain_text", lambda block: None)
    looks = []
    for batched in (True, False):
        if not batched:
            monkeypatch.setattr(markdown_doc, "_BATCHED", frozenset())
        view = _view(qtbot)
        view.show_text(PROSE)
        view.flush()
        live = view.live_markdown
        assert live is not None
        looks.append(
            (
                view.document().toHtml(),
                [(s.block.start, s.doc_start, s.doc_end) for s in live.closed],
            )
        )
    assert len(looks[0][1]) == 40 * 4
    assert sum(batches) == 40 * 4 and len(batches) < 10  # all in a few md4c documents
    assert looks[0] == looks[1]


def test_the_answer_view_can_show_plain_text(qtbot: QtBot) -> None:
    from widgets_fixtures import chat_state

    view = AnswerView(markdown=False)
    qtbot.addWidget(view)
    view.refresh(chat_state("## Title\n\n**bold**"))
    pane = view.pane(0)
    assert pane is not None and not pane.text.markdown
    assert pane.text.document().toPlainText() == "## Title\n\n**bold**"
    view.set_markdown(True)  # from the next run on
    state = chat_state("## Title\n\n**bold**")
    view.refresh(state)
    pane = view.pane(0)
    assert pane is not None and pane.text.markdown
    view.finish(state)
    assert pane.text.document().toPlainText() == "Title\nbold"


def test_a_fast_stream_renders_from_the_timer_not_inside_the_frame(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append("Start.\n\n", 0)
    view.sync(buffer)
    live = view.live_markdown
    assert live is not None and [s.block.kind for s in live.closed] == ["paragraph"]
    qtbot.wait(int(markdown_doc.FAST_INTERVAL * 1000) + 20)  # the next step is due
    burst = "## Fast\n\n" + "word " * (markdown_doc.FAST_CHARS // 5) + "\n\nend"
    buffer.append(burst, 1)
    view.sync(buffer)  # more than FAST_CHARS since the last step, and due: left to the timer
    assert len(live.closed) == 1 and live.pending
    qtbot.waitUntil(lambda: not view.pending, timeout=3000)
    assert [s.block.kind for s in live.closed] == ["paragraph", "heading", "paragraph"]
    assert "## Fast" not in view.document().toPlainText()
    assert view.document().toPlainText().endswith("Fast\n" + "word " * 299 + "word\nend")


def test_rendering_that_catches_up_repaints_ten_times_a_second_not_per_step(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from PySide6.QtCore import QEvent, QObject

    import playground.ui.views.live_text as live_text

    view = _view(qtbot)
    view.show()
    qtbot.waitExposed(view)
    steps: list[float] = []
    paints: list[float] = []
    step = markdown_doc.LiveMarkdown.step

    def counted(self: markdown_doc.LiveMarkdown, budget: float, *, defer: bool = False) -> object:
        steps.append(time.perf_counter())
        return step(self, budget, defer=defer)

    class Paints(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                paints.append(time.perf_counter())
            return False

    monkeypatch.setattr(markdown_doc.LiveMarkdown, "step", counted)
    watcher = Paints()
    view.viewport().installEventFilter(watcher)
    qtbot.wait(50)
    paints.clear()
    long_answer = PROSE * 12  # about 60,000 characters: many 5 ms steps
    view.show_text(long_answer)
    qtbot.waitUntil(lambda: not view.pending, timeout=20000)
    qtbot.wait(50)  # the repaint that follows the last step
    elapsed = steps[-1] - steps[0]
    assert len(steps) > 10  # the case this is about: rendered in slices
    assert view.viewport().updatesEnabled() and view.verticalScrollBar().updatesEnabled()
    assert paints and paints[-1] > steps[-1]  # what the last step rendered is on screen
    while_behind = [t for t in paints if t < steps[-1]]
    assert len(while_behind) <= elapsed / live_text.CATCH_UP_REPAINT + 2, (
        len(while_behind),
        len(steps),
    )
    assert view.document().toPlainText().endswith("Setext 39\nA second paragraph over two lines.")
