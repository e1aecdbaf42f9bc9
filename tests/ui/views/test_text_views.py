"""AnswerView, ThinkingView, TranscriptView: they show what the state holds, incrementally."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from pytestqt.qtbot import QtBot
from widgets_fixtures import append_text, capture_bytes, chat_state, decode

from playground.protocol.state import StreamState
from playground.ui.views.answer_view import AnswerView
from playground.ui.views.live_text import LiveText
from playground.ui.views.thinking_view import ThinkingView
from playground.ui.views.transcript_view import TranscriptView


@pytest.fixture(autouse=True)
def _no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_NO_AUDIO", "1")


def _settle(qtbot: QtBot, text: LiveText) -> None:
    """Wait until the live Markdown has laid out everything it received (it is throttled)."""
    qtbot.waitUntil(lambda: not text.pending, timeout=3000)


def test_answer_renders_closed_blocks_once_and_lays_out_only_the_open_block(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    state = chat_state("Hello", ", ")
    view.refresh(state)
    text = view.pane(0).text  # type: ignore[union-attr]
    doc = text.document()
    changes: list[tuple[int, int]] = []
    doc.contentsChange.connect(lambda pos, rem, _add: changes.append((pos, rem)))
    calls: list[str] = []
    text.setPlainText = lambda t: calls.append(t)  # type: ignore[method-assign]
    closed_ends: list[int] = []
    for n, piece in enumerate(["world", "\nsecond line", "\n\n## Part", " two\n", "third"]):
        state.choice(0).text.append(piece, 10 + n)
        view.refresh(state)
        _settle(qtbot, text)
        live = text.live_markdown
        assert live is not None
        closed_ends.append(live.closed[-1].doc_end if live.closed else 0)
    assert doc.toPlainText() == "Hello, world second line\nPart two\nthird"
    assert calls == []  # never re-set the whole text
    assert doc.findBlockByNumber(1).blockFormat().headingLevel() == 2
    # Nothing before the open block is ever touched again: every removal starts at or after
    # the end of what was closed when it happened.
    assert changes and all(pos >= min(closed_ends) for pos, rem in changes if rem)
    assert live is not None
    assert [s.block.kind for s in live.closed] == ["paragraph", "heading"]
    assert view.has_content()


def test_refresh_without_new_text_changes_nothing(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    state = chat_state("abc")
    view.refresh(state)
    changes: list[int] = []
    pane = view.pane(0)
    assert pane is not None
    pane.text.document().contentsChange.connect(lambda *a: changes.append(1))
    view.refresh(state)
    assert changes == []


def test_markdown_rendered_while_streaming_and_nothing_jumps_at_the_end(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    state = chat_state("# Title\n\n", "Some **bold** text")
    view.refresh(state)
    text = view.pane(0).text  # type: ignore[union-attr]
    _settle(qtbot, text)
    assert text.rendered
    live = text.toPlainText()
    assert live == "Title\nSome bold text"  # rendered while the paragraph is still open
    assert text.document().firstBlock().blockFormat().headingLevel() == 1
    html = text.document().toHtml()
    state.status = "complete"
    view.finish(state)
    _settle(qtbot, text)
    assert text.toPlainText() == live and text.document().toHtml() == html  # no jump
    assert not view.incomplete_marked


@pytest.mark.parametrize("status", ["failed", "truncated", "incomplete", "cancelled"])
def test_partial_output_marked_incomplete(qtbot: QtBot, status: str) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    state = chat_state("partial answ")
    state.status = status
    view.finish(state)
    assert view.incomplete_marked
    assert "Incomplete" in view.marker.text()
    pane = view.pane(0)
    assert pane is not None and pane.text.toPlainText() == "partial answ"


def test_tab_per_choice_from_real_n3_capture(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("chat/openai-gpt4o-n3-choices"), chunk=97)
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    view.finish(decoder.state)
    assert sorted(view.panes) == sorted(decoder.state.choices) and len(view.panes) == 3
    assert view.tabs.tabBar().isVisibleTo(view)
    for index, choice in decoder.state.choices.items():
        pane = view.pane(index)
        assert pane is not None
        # Rendered as Markdown at finish; the words are the choice's words.
        assert pane.text.toPlainText().split() == choice.text.value.split()
    assert view.tabs.tabText(0).startswith("Choice 0")


def test_single_choice_has_no_tab_bar(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(chat_state("one"))
    assert not view.tabs.tabBar().isVisibleTo(view)


def test_refusal_shown_as_refusal(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("chat/openai-gpt4o-refusal"))
    expected = decoder.state.refusal
    assert expected
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    pane = view.pane(0)
    assert pane is not None
    assert pane.refusal_box.isVisibleTo(view)
    assert pane.refusal.toPlainText() == expected
    assert view.has_content()


def test_real_capture_text_equals_state(qtbot: QtBot) -> None:
    data = capture_bytes("chat/openai-gpt4o-text-include-usage")
    decoder = decode(data, chunk=13)
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    assert view.pane(0).text.toPlainText() == decoder.state.text  # type: ignore[union-attr]


def test_click_emits_item_and_highlight_marks_spans(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    qtbot.waitExposed(view)
    state = StreamState()
    append_text(state.choice(0).text, ["AAAA", "BBBB", "CCCC"], first_item=5)
    view.refresh(state)
    pane = view.pane(0)
    assert pane is not None
    text = pane.text
    # item_at through the document position of the 6th character ("B" of item 6)
    assert text.item_at_position(5) == 6
    assert text.item_at_position(0) == 5
    cursor = text.textCursor()
    cursor.setPosition(9)
    rect = text.cursorRect(cursor)
    with qtbot.waitSignal(view.itemActivated, timeout=1000) as blocker:
        qtbot.mouseClick(  # type: ignore[no-untyped-call]
            text.viewport(), Qt.MouseButton.LeftButton, pos=rect.center() + QPoint(2, 0)
        )
    assert blocker.args == [7]
    view.highlight_item(6)
    selections = text.extraSelections()
    assert len(selections) == 1
    assert selections[0].cursor.selectedText() == "BBBB"
    view.highlight_item(99)
    assert text.extraSelections() == []


def test_highlight_after_markdown_render_finds_the_words(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    state = StreamState()
    append_text(state.choice(0).text, ["Some ", "**bold**", " words"])
    view.refresh(state)
    state.status = "complete"
    view.finish(state)
    view.highlight_item(2)
    selections = view.pane(0).text.extraSelections()  # type: ignore[union-attr]
    assert [s.cursor.selectedText() for s in selections] == ["words"]


def test_reset_clears(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(chat_state("x"))
    view.reset()
    assert not view.has_content()
    assert view.pane(0).text.toPlainText() == ""  # type: ignore[union-attr]
    view.refresh(chat_state("new run"))
    assert view.pane(0).text.toPlainText() == "new run"  # type: ignore[union-attr]


def test_thinking_live_dimmed_and_signature_noted(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("messages/anthropic-sonnet4-thinking-signature"), chunk=64)
    state = decoder.state
    assert state.signatures
    view = ThinkingView()
    qtbot.addWidget(view)
    view.refresh(state)
    assert view.text.toPlainText() == state.reasoning
    assert "signature" in view.note.text()
    for _kind, value in state.signatures:
        assert value not in view.text.toPlainText() and value not in view.note.text()
    assert view.text.textCursor().charFormat().fontItalic() or view.text.font().italic()
    assert f"{len(state.reasoning):,} chars" in view.toggle.text()
    view.set_expanded(False)
    assert not view.text.isVisibleTo(view)
    view.highlight_item(decoder.state.choices[0].reasoning.origins[0][1])
    assert view.expanded


def test_thinking_grows_incrementally(qtbot: QtBot) -> None:
    view = ThinkingView()
    qtbot.addWidget(view)
    state = StreamState()
    reasoning = state.choice(0).reasoning
    for n, piece in enumerate(["Let me ", "think ", "about it.\n\n", "Then *answer*."]):
        reasoning.append(piece, n)
        view.refresh(state)
        _settle(qtbot, view.text)
    assert view.text.toPlainText() == "Let me think about it.\nThen answer."
    live = view.text.live_markdown
    assert live is not None and [s.block.text for s in live.closed] == ["Let me think about it."]
    # Dimmed and italic over the rendered Markdown too.
    cursor = QTextCursor(view.text.document())
    cursor.setPosition(3)
    assert cursor.charFormat().fontItalic()


def test_redacted_thinking_noted(qtbot: QtBot) -> None:
    view = ThinkingView()
    qtbot.addWidget(view)
    state = StreamState()
    state.signatures.append(("redacted", "EmwKAhgB" * 20))
    view.refresh(state)
    assert "redacted thinking" in view.note.text()
    assert view.has_content()


def test_transcript_live_text_and_segments(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("transcription/openai-transcribe-diarize-segments"))
    view = TranscriptView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    view.finish(decoder.state)
    segments = decoder.state.segments
    assert view.segments.rowCount() == len(segments) == 3
    cells = {(row, col): view.segments.item(row, col) for row, col in [(0, 0), (1, 1), (2, 2)]}
    assert all(cell is not None for cell in cells.values())
    assert [cell.text() for cell in cells.values() if cell is not None] == [
        "A",
        "1.60 – 3.65",
        segments[2]["text"],
    ]
    assert view.shown_text.strip() == (decoder.state.done_text or "").strip()


def test_transcript_text_deltas(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("transcription/openai-transcribe-text-deltas"), chunk=20)
    view = TranscriptView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    assert view.shown_text == decoder.state.choices[0].text.value
    assert view.segments.isHidden()
    view.finish(decoder.state)
    assert view.shown_text.strip() == decoder.state.text.strip()


def test_endless_paragraph_is_broken_but_offsets_still_line_up(qtbot: QtBot) -> None:
    from playground.ui.views.live_text import PARAGRAPH_LIMIT

    text = LiveText()  # plain text (refusals, transcripts)
    qtbot.addWidget(text)
    buffer = StreamState().choice(0).text
    words = ["word "] * (3 * PARAGRAPH_LIMIT // 5)
    for start in range(0, len(words), 50):  # a frame's worth of tokens per refresh
        append_text(buffer, words[start : start + 50], first_item=start)
        text.sync(buffer)
    doc = text.document()
    assert doc.blockCount() >= 2  # laid out in bounded paragraphs while streaming
    assert len(text.toPlainText()) == len(buffer)
    assert text.toPlainText().replace("\n", " ") == buffer.value
    last = len(buffer) - 2
    assert text.item_at_position(last) == len(words) - 1
    text.highlight(len(words) - 1)
    assert [s.cursor.selectedText() for s in text.extraSelections()] == ["word "]


def test_endless_markdown_paragraph_is_cut_and_clicks_still_find_their_event(
    qtbot: QtBot,
) -> None:
    from playground.protocol.markdown import LIMIT

    view = AnswerView()
    qtbot.addWidget(view)
    state = StreamState()
    buffer = state.choice(0).text
    words = [f"w{n:04d} " for n in range(LIMIT // 2)]  # 6 characters each: 3 limits long
    for start in range(0, len(words), 50):
        append_text(buffer, words[start : start + 50], first_item=start)
        view.refresh(state)
    text = view.pane(0).text  # type: ignore[union-attr]
    _settle(qtbot, text)
    live = text.live_markdown
    assert live is not None and len(live.closed) >= 2  # cut: the open block stays bounded
    assert text.toPlainText().split() == buffer.value.split()
    at = text.toPlainText().index("w0900")
    assert text.item_at_position(at + 2) == 900
    view.highlight_item(999)
    assert [s.cursor.selectedText() for s in text.extraSelections()] == ["w0999"]


def test_a_new_state_without_reset_starts_over(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    view.refresh(chat_state("first run, long text"))
    view.refresh(chat_state("second"))
    assert view.pane(0).text.toPlainText() == "second"  # type: ignore[union-attr]
