"""The plain text view under a flood: each sync shows a budget's worth, the timer the rest."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

import playground.ui.views.live_text as live_text
from playground.protocol.state import TextBuffer
from playground.ui.views.live_text import LiveText

LINE = "Plain words of a long answer, streamed far faster than anyone reads them.\n"


def _view(qtbot: QtBot) -> LiveText:
    view = LiveText(markdown=False)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    return view


def test_a_flood_shows_in_slices_and_all_of_it_in_the_end(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append(LINE * 100, 0)  # a first sync learns the cost per character
    view.sync(buffer)
    assert view.shown == len(LINE) * 100 and not view.pending
    buffer.append(LINE * 4000, 1)  # about 300,000 characters arrive between two frames
    view.sync(buffer)
    # One frame lays out what fits its budget, not all of it...
    assert live_text.SLICE_MIN <= view.shown - len(LINE) * 100 < len(LINE) * 4000
    assert view.pending
    assert view.document().toPlainText() == buffer.value[: view.shown]
    # ... and the timer shows the rest, in order, with nothing lost.
    qtbot.waitUntil(lambda: not view.pending, timeout=10_000)
    assert view.shown == len(buffer.value)
    assert view.document().toPlainText() == buffer.value


def test_a_frame_of_a_paced_stream_shows_at_once(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append(LINE * 100, 0)
    view.sync(buffer)
    buffer.append("a few tokens", 1)
    view.sync(buffer)
    assert not view.pending and view.document().toPlainText() == buffer.value


def test_flush_shows_everything_now(qtbot: QtBot) -> None:
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append(LINE * 100, 0)
    view.sync(buffer)
    buffer.append(LINE * 4000, 1)
    view.sync(buffer)
    assert view.pending
    view.flush()
    assert not view.pending and view.document().toPlainText() == buffer.value


def test_a_long_insert_keeps_its_line_ends(qtbot: QtBot) -> None:
    # Lines well under the paragraph limit: nothing to break, however much comes at once.
    view = _view(qtbot)
    buffer = TextBuffer()
    buffer.append(LINE * 1000, 0)
    view.sync(buffer)
    view.flush()
    assert view.document().toPlainText() == buffer.value
    assert view.document().blockCount() == 1001
