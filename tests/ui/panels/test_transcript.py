"""The transcript: a conversational panel is one column where the run streams as the last turn,
nothing of another conversation's runs stays on screen, a failed turn is replaced or retried on
itself, and the transcript keeps its room."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.ui.panel_helpers import sim_panel, then_wait

ROUTES = ("chat", "responses", "messages")


def _run_shown(panel: Any) -> bool:
    """Whether anything of a run is on screen: its output box in a turn, a banner, a status."""
    host = panel.output_box
    answer = panel.built_widgets().get("answer")
    return (
        host.isVisibleTo(panel)
        or panel.banner.isVisibleTo(panel)
        or panel.status_line.text() not in ("", "idle")
        or bool(answer is not None and answer.has_content())
    )


def _failed_run(qloop: Any, panel: Any) -> None:
    panel.set_fault("http-429")
    panel.editor.set_prompt("Tell me about lighthouses")
    assert then_wait(qloop, panel) == "failed"
    assert _run_shown(panel) and panel.banner.isVisibleTo(panel)
    panel.set_fault("none")


@pytest.mark.parametrize("route", ROUTES)
def test_the_run_streams_as_the_last_turn_and_stays_there(route: str, qloop: Any, sim: Any) -> None:
    panel = sim_panel(route, sim, pace="slow")
    view = panel.conversation.view
    seen: list[dict[str, Any]] = []

    async def send_and_look() -> str:
        panel.send()
        while not panel.session.is_running or panel.session.state is None:
            await asyncio.sleep(0.01)
        while not panel.session.state.text:
            await asyncio.sleep(0.01)
        seen.append(panel.dump_state()["transcript"])
        status: str = await panel.session.wait()
        return status

    assert qloop.run(send_and_look(), 60) == "complete"
    qloop.sleep(0.05)
    during = seen[0]
    assert [t["role"] for t in during["turns"]] == ["user", "assistant"]
    assert during["turns"][-1]["state"] == "streaming"
    # The answer's views are inside the last turn, and that turn is the one that holds it after.
    block = view.blocks[-1]
    assert view.host_block() is block
    assert panel.widgets["answer"].isVisibleTo(block)
    after = panel.dump_state()["transcript"]
    assert after["turns"][-1]["state"] == "done" and len(after["turns"]) == 2
    x, y, w, h = after["rect"]
    tx, ty, tw, th = after["turns"][-1]["rect"]
    assert x <= tx and y <= ty and tx + tw <= x + w and ty + th <= y + h and th > 0


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("change", ["new", "paste body", "send to", "preset", "conversation"])
def test_nothing_of_an_earlier_conversations_run_stays(
    route: str, change: str, qloop: Any, window: Any, send_and_wait: Any
) -> None:
    panel = window.show_panel(route)
    panel.set_fault("incomplete")  # a banner and a partial answer to leave behind
    assert send_and_wait(panel) == "incomplete"
    assert _run_shown(panel)
    if change == "new":
        panel.conversation.clear()
    elif change == "paste body":
        panel.editor.set_body(
            {**panel.editor.body(), **_pasted(route)}  # another conversation typed as JSON
        )
        panel.editor.flush()
    elif change == "send to":
        # Another panel's thread carried here replaces this one.
        other = window.show_panel(next(r for r in ROUTES if r != route))
        other.editor.set_prompt("Carried over")
        other.conversation.editing.send_to(route)
        panel = window.show_panel(route)
    elif change == "preset":
        window.show_panel(route)
        assert window.menus.presets.save("saved-now") is not None
        panel.editor.set_prompt("Another question")
        panel.set_fault("none")
        assert send_and_wait(panel) == "complete"
        panel.set_fault("midstream-error")
        panel.editor.set_prompt("And one more")
        assert send_and_wait(panel) == "failed"
        assert window.menus.presets.open("saved-now") is panel
    else:
        saved = window.kept.keep_now(panel)
        assert saved is not None
        panel.conversation.clear()
        panel.editor.set_prompt("A second conversation")
        panel.set_fault("midstream-error")
        assert send_and_wait(panel) == "failed"
        window.kept.open(saved)
    qloop.sleep(0.05)
    panel = window.show_panel(route)
    answer = panel.built_widgets().get("answer")
    assert not _run_shown(panel), (
        change,
        panel.output_box.isVisibleTo(panel),
        panel.banner.isVisibleTo(panel),
        panel.status_line.text(),
        answer is not None and answer.has_content(),
    )
    assert panel.conversation.view.host_block() is None
    assert all(not b.coming for b in panel.conversation.view.blocks)


def _pasted(route: str) -> dict[str, Any]:
    turns = [{"role": "user", "content": "A pasted question"}]
    return {"input": turns} if route == "responses" else {"messages": turns}


@pytest.mark.parametrize("route", ROUTES)
def test_a_send_after_a_failure_replaces_the_failed_attempt(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = sim_panel(route, sim, pace="instant")
    _failed_run(qloop, panel)
    assert panel.dump_state()["transcript"]["turns"][-1]["state"] == "failed"
    panel.editor.set_prompt("Tell me about harbours instead")
    assert then_wait(qloop, panel) == "complete"
    roles = [t.role for t in panel.conversation.turns]
    assert roles == ["user", "assistant"]
    assert panel.conversation.turns[0].text == "Tell me about harbours instead"
    # An empty message box after a failure sends the failed turn again (one user turn still).
    _failed_run(qloop, panel)
    panel.editor.set_prompt("")
    assert then_wait(qloop, panel) == "complete"
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"] * 2


@pytest.mark.parametrize("route", ROUTES)
def test_retry_sends_the_turn_again_with_the_fault_as_it_is_now(
    route: str, qloop: Any, sim: Any
) -> None:
    panel = sim_panel(route, sim, pace="instant")
    panel.set_fault("midstream-error")
    panel.editor.set_prompt("Tell me about lighthouses")
    assert then_wait(qloop, panel) == "failed"
    assert panel.banner.retry.isVisibleTo(panel)
    panel.editor.set_prompt("a draft typed meanwhile")  # waits for the next Send
    panel.set_fault("none")
    said: list[str] = []
    panel.session.started.connect(lambda: said.append(panel.banner.text))
    assert then_wait(qloop, panel, panel.banner.retry.click) == "complete"
    assert said and "no fault" in said[-1]  # the turn said what the retry sends
    assert [t.role for t in panel.conversation.turns] == ["user", "assistant"]
    assert panel.conversation.turns[0].text == "Tell me about lighthouses"
    assert panel.editor.prompt.toPlainText() == "a draft typed meanwhile"
    assert panel.dump_state()["transcript"]["turns"][-1]["state"] == "done"


def test_an_empty_message_box_sends_nothing_and_says_so(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    panel.editor.set_prompt("")
    assert panel.editor.prompt.placeholderText()  # a placeholder, never prefilled text
    panel.send()
    assert panel.session.state is None
    assert "Type a message" in panel.transcript.notice.text


def test_the_transcript_gets_the_room_at_1024_by_700(window: Any, qloop: Any) -> None:
    window.resize(1024, 700)
    qloop.sleep(0.1)
    panel = window.show_panel("chat")
    qloop.sleep(0.1)
    _x, _y, w, _h = panel.dump_state()["transcript"]["rect"]
    assert w >= 1024 // 2
    assert not panel.transcript.form_shown  # the form gave way first
    # Asked for, the form comes back; the transcript keeps its minimum.
    panel.transcript.set_form_shown(True)
    qloop.sleep(0.1)
    assert panel.transcript.form_shown
    assert panel.transcript.column.width() >= 420


def test_starving_remembered_sizes_are_clamped(qloop: Any, sim: Any, settings: Any) -> None:
    from PySide6.QtCore import QByteArray

    from playground.ui.window.shell import MainWindow

    first = MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )
    first.resize(1100, 700)
    first.show()
    qloop.sleep(0.1)
    panel: Any = first.show_panel("chat")
    panel.transcript.set_form_shown(True)
    qloop.sleep(0.05)
    # Drag everything away from the transcript: the inspector and the form as wide as can be.
    first.splitter.setSizes([10, 5000])
    panel.splitter.setSizes([10, 5000])
    qloop.sleep(0.05)
    assert panel.transcript.column.width() >= 420  # the drag itself is clamped
    from playground.ui.window.remembered import remember

    remember(first)
    first._closing = True
    qloop.run(first.shutdown(), 10)
    first.close()
    first.deleteLater()
    assert isinstance(settings.value("panel/chat/transcript"), QByteArray)

    again = MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )
    try:
        again.resize(1100, 700)
        again.show()
        qloop.sleep(0.1)
        panel = again.show_panel("chat")
        qloop.sleep(0.1)  # (a conversational panel: it has a transcript)
        assert panel.transcript.column.width() >= 420
        assert panel.dump_state()["transcript"]["rect"][2] >= 420
    finally:
        again._closing = True
        qloop.run(again.shutdown(), 10)
        again.close()
        again.deleteLater()


def test_an_earlier_answer_keeps_its_figures_in_its_turn(qloop: Any, sim: Any) -> None:
    from PySide6.QtWidgets import QLabel

    panel = sim_panel("chat", sim, pace="instant")
    assert then_wait(qloop, panel) == "complete"
    ended = panel.status_line.text()
    panel.editor.set_prompt("And then?")
    assert then_wait(qloop, panel) == "complete"
    qloop.sleep(0.05)
    first = panel.conversation.view.blocks[1]
    assert first.turn.role == "assistant" and not first.live
    labels = [w.text() for w in first.findChildren(QLabel) if w.objectName() == "turnRunFigures"]
    # The figures its run ended with (cost and cache have their own line, turn_costs.py).
    assert len(labels) == 1 and "TTFT" in labels[0]
    assert labels[0].split(" · ")[:4] == ended.split(" · ")[:4]


def test_a_failed_turn_offers_edit_of_the_message_it_failed_for(qloop: Any, sim: Any) -> None:
    panel = sim_panel("messages", sim, pace="instant")
    _failed_run(qloop, panel)
    view = panel.conversation.view
    failed = view.host_block()
    assert failed is view.blocks[-1] and failed.coming
    assert failed.edit_button.isEnabled()
    failed.edit_button.click()
    asked = view.blocks[-2]
    assert asked.editor is not None
    assert asked.editor.edit.toPlainText() == "Tell me about lighthouses"


def test_each_runs_answer_is_as_tall_as_its_text_with_no_bar_of_its_own(
    qloop: Any, sim: Any
) -> None:
    # A bar shown whenever the text outgrew its last fitted height, hidden at the next fit, laid
    # the whole answer out again at each change of width: each run's text is made anew.
    from PySide6.QtCore import Qt

    from playground.ui.views.live_text import LiveText

    panel = sim_panel("chat", sim, pace="instant")
    for prompt in ("Tell me about lighthouses", "And then?"):
        panel.editor.set_prompt(prompt)
        assert then_wait(qloop, panel) == "complete"
        qloop.sleep(0.05)
        texts = [t for t in panel.widgets["answer"].findChildren(LiveText) if t.isVisibleTo(panel)]
        assert texts
        for text in texts:
            assert text.verticalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
            assert text.height() >= text.document().size().height()


def test_no_widget_of_an_earlier_turn_has_a_style_sheet_of_its_own(qloop: Any, sim: Any) -> None:
    # Each gave its widget a style of its own: ~13 KB a widget, kept by every turn.
    from PySide6.QtWidgets import QWidget

    panel = sim_panel("chat", sim, pace="instant")
    for prompt in ("Tell me about lighthouses", "And then?"):
        panel.editor.set_prompt(prompt)
        assert then_wait(qloop, panel) == "complete"
    qloop.sleep(0.1)
    view = panel.conversation.view
    earlier = [b for b in view.blocks if b is not view.host_block()]
    assert len(earlier) == 3
    styled = [w for b in earlier for w in [b, *b.findChildren(QWidget)] if w.styleSheet()]
    assert styled == []


@pytest.mark.parametrize("route", ROUTES)
def test_a_send_while_an_answer_streams_replaces_that_attempt(
    route: str, qloop: Any, sim: Any
) -> None:
    # Sending while the answer streams stops it, as Stop would: the new message takes the
    # attempt's place, as after a failure, and never stacks a second user turn without an answer.
    panel = sim_panel(route, sim, pace="slow")
    panel.editor.set_prompt("Tell me about lighthouses")

    async def send_twice() -> str:
        panel.send()
        while panel.session.state is None or not panel.session.state.text:
            await asyncio.sleep(0.01)
        panel.editor.set_prompt("No, tell me about harbours")
        panel.set_pace("instant")
        panel.send()
        await asyncio.sleep(0.05)
        status: str = await panel.session.wait()
        return status

    assert qloop.run(send_twice(), 60) == "complete"
    qloop.sleep(0.1)
    thread = panel.conversation
    assert [t.role for t in thread.turns] == ["user", "assistant"]
    assert thread.turns[0].text == "No, tell me about harbours"
    states = [t["state"] for t in panel.dump_state()["transcript"]["turns"]]
    assert states == ["done", "done"]
    sent = thread.requests[-1]["body"]
    assert "lighthouses" not in str(sent)
