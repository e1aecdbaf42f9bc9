"""The Conversations dock in the real window on the real simulator: a conversation kept as it
changes, found again after a restart (a new window on the same data folder), reopened and
continued with every turn in the request; rename, delete, search; its runs in the History,
whose rows of conversational routes say their prompt."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from panel_helpers import say
from PySide6.QtCore import Qt

ROUTES = ("chat", "responses", "messages")
FIRST = "Tell me about the Eiffel Tower in Paris"
SECOND = "Then tell me about Rome"
THIRD = "Which of the two is older?"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data folder of this test's own (the windows below keep their conversations there)."""
    folder = tmp_path / "data"
    monkeypatch.setenv("PLAYGROUND_DATA_DIR", str(folder))
    yield folder


def _new_window(sim: Any, settings: Any) -> Any:
    from playground.ui.window.shell import MainWindow

    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    win.show()
    return win


def _close(qloop: Any, win: Any) -> None:
    win._closing = True
    qloop.run(win.shutdown(), 10)
    win.close()
    win.deleteLater()


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for v in value for s in _strings(v)] if isinstance(value, list) else []


def _rows(view: Any) -> list[list[str]]:
    tree = view.tree
    return [
        [tree.topLevelItem(i).text(c) for c in range(tree.columnCount())]
        for i in range(tree.topLevelItemCount())
    ]


@pytest.mark.parametrize("route", ROUTES)
def test_kept_across_a_restart_then_reopened_and_continued(
    route: str, data: Path, sim: Any, settings: Any, qloop: Any, qtbot: Any
) -> None:
    first = _new_window(sim, settings)
    try:
        panel = first.show_panel(route)
        panel.set_pace("instant")
        assert say(qloop, panel, FIRST) == "complete"
        assert say(qloop, panel, SECOND) == "complete"
        turns = list(panel.conversation.turns)
        answers = [t.text for t in turns if t.role == "assistant"]
    finally:
        _close(qloop, first)

    second = _new_window(sim, settings)  # the program started again on the same data folder
    try:
        view = second.docks.conversations_view
        view.refresh()
        (row,) = _rows(view)
        assert (row[0], row[1], row[3]) == (FIRST, route, "4") and row[2]  # title … model
        (conversation_id,) = view.ids()
        panel = second.docks.open_conversation(conversation_id)
        assert panel is second.current_panel() and panel.route == route
        assert [(t.role, t.text) for t in panel.conversation.turns] == [
            (t.role, t.text) for t in turns
        ]
        panel.set_pace("instant")
        assert say(qloop, panel, THIRD) == "complete"
        sent = json.dumps(panel.conversation.requests[-1]["body"], ensure_ascii=False)
        # The request carries every earlier turn, the answers too, before the new prompt.
        assert sent.index(FIRST) < sent.index(SECOND) < sent.index(THIRD)
        strings = _strings(panel.conversation.requests[-1]["body"])
        assert all(any(answer[:60] in text for text in strings) for answer in answers)
        qloop.sleep(0.05)
        view.refresh()
        assert view.ids() == [conversation_id]  # continued, not a second conversation
        saved = second.kept.store.load(conversation_id)
        assert saved.turns == 6 and len(saved.runs) == 3
        assert all(Path(run.capture).name.startswith(run.id) for run in saved.runs)
    finally:
        _close(qloop, second)


def test_search_rename_and_delete(data: Path, window: Any, qloop: Any) -> None:
    chat = window.show_panel("chat")
    assert say(qloop, chat, FIRST) == "complete"
    window.show_panel("messages")
    messages = window.current_panel()
    assert say(qloop, messages, "A haiku about autumn leaves") == "complete"
    view = window.docks.conversations_view
    view.refresh()
    assert [r[0] for r in _rows(view)] == ["A haiku about autumn leaves", FIRST]
    view.search.setText("EIFFEL")
    view.refresh()  # the list follows typing after a pause; here at once
    assert [r[0] for r in _rows(view)] == [FIRST]
    answer_words = chat.conversation.turns[-1].text.split()[:3]
    view.search.setText(" ".join(answer_words))  # an answer's words find it too
    view.refresh()
    assert FIRST in [r[0] for r in _rows(view)]
    view.search.setText("")
    view.refresh()
    assert view.select(view.ids()[1])
    view.rename("Towers")
    assert sorted(r[0] for r in _rows(view)) == ["A haiku about autumn leaves", "Towers"]
    assert view.select(view.ids()[0])
    view.delete()
    assert len(view.ids()) == 1 and len(window.kept.store.list()) == 1


def test_opening_over_unkept_work_keeps_it_first(data: Path, window: Any, qloop: Any) -> None:
    from playground.protocol.conversation.model import Conversation, Turn

    panel = window.show_panel("chat")
    assert say(qloop, panel, FIRST) == "complete"
    kept_id = window.kept.store.list()[0].id
    # A thread no kept conversation has: pasted, restored, edited before any run.
    panel.conversation.restore([Turn.of("user", "Unsent idea"), Turn.of("assistant", "Noted")])
    assert window.kept.unsaved_work(panel)
    window.docks.open_conversation(kept_id)
    assert panel.conversation.turns[0].text == FIRST
    titles = [r.title for r in window.kept.store.list()]
    assert sorted(titles) == sorted([FIRST, "Unsent idea"])  # nothing was lost silently
    restored = window.kept.store.list("unsent")[0]
    assert window.kept.store.load(restored.id).conversation == Conversation(
        (Turn.of("user", "Unsent idea"), Turn.of("assistant", "Noted")),
        panel.editor.system_box().toPlainText() or None,
    )


def test_runs_are_in_history_and_history_rows_say_their_prompt(
    data: Path, window: Any, qloop: Any
) -> None:
    panel = window.show_panel("responses")
    assert say(qloop, panel, FIRST) == "complete"
    assert say(qloop, panel, SECOND) == "complete"
    history = window.docks.history_view
    history.set_route("responses")
    tree = history.tree
    last = tree.columnCount() - 1
    texts = [tree.topLevelItem(i).text(last) for i in range(tree.topLevelItemCount())]
    assert texts[0].startswith(f"“{SECOND}” → ") and texts[1].startswith(f"“{FIRST}” → ")

    view = window.docks.conversations_view
    view.refresh()
    assert view.select(view.ids()[0])
    runs = view.runs
    assert runs.topLevelItemCount() == 2
    run_id = runs.topLevelItem(1).data(0, Qt.ItemDataRole.UserRole)  # the first run
    view.show_run(run_id)
    assert history.selected_id() == run_id
    code = history.export_code("curl")  # export (and bundles) work on any run of it
    assert code is not None and FIRST in code and SECOND not in code


def test_a_damaged_conversation_file_is_set_aside_and_said(
    data: Path, window: Any, qloop: Any
) -> None:
    panel = window.show_panel("chat")
    assert say(qloop, panel, FIRST) == "complete"
    folder = data / "conversations"
    (folder / "20200101T000000000000-aaaaaa.conversation.json").write_text("{broken")
    view = window.docks.conversations_view
    view.refresh()
    assert [r[0] for r in _rows(view)] == [FIRST]
    assert "set aside" in view.message
    assert (folder / "20200101T000000000000-aaaaaa.conversation.json.corrupt").exists()


def test_saved_after_each_edit_and_new_starts_another(data: Path, window: Any, qloop: Any) -> None:
    panel = window.show_panel("chat")
    assert say(qloop, panel, FIRST) == "complete"
    store = window.kept.store
    (row,) = store.list()
    assert row.turns == 2
    panel.conversation.delete(1)  # an edit: the answer deleted
    qloop.sleep(0.05)
    assert store.load(row.id).conversation.turns == tuple(panel.conversation.turns)
    assert store.list()[0].turns == 1
    panel.conversation.clear()  # New conversation: the next run keeps another one
    assert say(qloop, panel, SECOND) == "complete"
    rows = store.list()
    assert [r.title for r in rows] == [SECOND, FIRST] and rows[1].turns == 1


def test_beside_history_the_panel_decides_which_shows(data: Path, window: Any, qloop: Any) -> None:
    docks = window.docks
    window.resize(1920, 1080)
    window.show_panel("images")
    docks.show("history", True)
    qloop.sleep(0.05)
    conversations = docks.dock("conversations")
    assert not conversations.isVisible()  # the Images panel keeps its runs' history
    window.show_panel("messages")
    qloop.sleep(0.05)
    history = docks.dock("history")
    assert conversations.isVisible() and history in window.tabifiedDockWidgets(conversations)
    assert not conversations.visibleRegion().isEmpty() and history.visibleRegion().isEmpty()
    window.show_panel("speech")
    qloop.sleep(0.05)
    assert not history.visibleRegion().isEmpty() and conversations.visibleRegion().isEmpty()
