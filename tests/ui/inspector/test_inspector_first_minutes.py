"""The inspector as a new user meets it: the JSON tree keeps what was opened, the Type column
shows its names whole, the Request tab elides base64 (with a copy of the whole), and a word
clicked in one view clears another's stale highlight."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from pytestqt.qtbot import QtBot
from widgets_fixtures import capture_bytes

from playground.protocol.stream import StreamDecoder
from playground.ui.inspector.inspector import Inspector


@pytest.fixture(autouse=True)
def _no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_NO_AUDIO", "1")


def _inspector(qtbot: QtBot, width: int = 900) -> Inspector:
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(width, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    return inspector


def _run(inspector: Inspector, data: bytes) -> StreamDecoder:
    decoder = StreamDecoder("auto")
    inspector.attach(decoder)
    for i in range(0, len(data), 256):
        inspector.append(decoder.feed(data[i : i + 256], i / 1e5))
    inspector.append(decoder.finish(1.0))
    return decoder


def _node(tree: Any, *path: str) -> Any:
    parent = tree.invisibleRootItem()
    for key in path:
        parent = next(
            parent.child(i) for i in range(parent.childCount()) if parent.child(i).text(0) == key
        )
    return parent


def test_the_json_tree_keeps_what_was_opened_across_events_of_one_type(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, capture_bytes("chat/openai-gpt4o-text-include-usage"))
    model, tree = inspector.model, inspector.detail.tree
    assert model.type_name(3) == model.type_name(4) == model.type_name(5)
    inspector.view.selectRow(3)
    delta = _node(tree, "choices", "[0]", "delta")
    assert not delta.isExpanded()  # folded by default, two levels down
    delta.setExpanded(True)
    _node(tree, "choices").setExpanded(True)
    inspector.view.selectRow(4)
    assert _node(tree, "choices", "[0]", "delta").isExpanded()
    _node(tree, "choices", "[0]").setExpanded(False)  # a node closed by hand stays closed too
    inspector.view.selectRow(5)
    assert not _node(tree, "choices", "[0]").isExpanded()
    assert _node(tree, "choices", "[0]", "delta").isExpanded()


def test_the_type_column_shows_its_longest_name_whole_and_summary_takes_the_rest(
    qtbot: QtBot,
) -> None:
    from playground.ui.inspector.inspector import COL_SUMMARY, COL_TYPE

    inspector = _inspector(qtbot, 900)  # the inspector's width in a 1920-px window
    _run(inspector, capture_bytes("responses/openai-gpt4omini-text-obfuscation"))
    qtbot.wait(50)
    header = inspector.view.horizontalHeader()
    metrics = inspector.view.fontMetrics()
    longest = max(inspector.model.type_names, key=metrics.horizontalAdvance)
    assert longest == "response.output_text.delta" or len(longest) >= len("response.created")
    assert header.sectionSize(COL_TYPE) - 6 >= metrics.horizontalAdvance(longest)
    used = sum(header.sectionSize(c) for c in range(header.count()))
    assert used == inspector.view.viewport().width()  # the summary took exactly the rest
    assert header.sectionSize(COL_SUMMARY) > 200


def test_a_column_sized_by_hand_is_not_widened_by_its_content(qtbot: QtBot) -> None:
    from playground.ui.inspector.inspector import COL_TYPE

    inspector = _inspector(qtbot, 900)
    inspector.ensure_model()
    inspector.view.horizontalHeader().resizeSection(COL_TYPE, 90)  # as a drag does
    _run(inspector, capture_bytes("responses/openai-gpt4omini-text-obfuscation"))
    assert inspector.view.horizontalHeader().sectionSize(COL_TYPE) == 90


def test_the_request_tab_elides_base64_and_copies_the_whole(qtbot: QtBot) -> None:
    from PySide6.QtGui import QGuiApplication

    inspector = _inspector(qtbot)
    image = base64.b64encode(bytes(range(256)) * 4000).decode()  # 1,024,000 bytes
    body = {
        "model": "m",
        "api_key": "sk-body-secret",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image}"}},
                    {"type": "input_audio", "input_audio": {"data": image, "format": "wav"}},
                ],
            }
        ],
    }
    inspector.set_request(
        "POST",
        "http://127.0.0.1:1/v1/chat/completions",
        {"Authorization": "Bearer sk-live-secret-123456"},
        json.dumps(body).encode(),
    )
    view = inspector.request_view
    text = view.toPlainText()
    assert image[:100] not in text and len(text) < 2000
    assert '"url": "data:image/png;base64,<1024000 bytes base64>"' in text
    assert '"data": "<1024000 bytes base64>"' in text
    from PySide6.QtCore import QPoint

    menu = view.context_menu(QPoint(4, 4))
    copy = menu.actions()[-1]
    assert copy.text() == "Copy full request" and copy.isEnabled()
    copy.trigger()
    menu.deleteLater()
    copied = QGuiApplication.clipboard().text()
    assert copied.count(image) == 2  # every byte, in the shape it was sent
    assert json.loads(copied.split("── Body ──\n", 1)[1])["messages"] == body["messages"]
    for secret in ("sk-body-secret", "sk-live-secret-123456"):  # keys stay redacted in the copy
        assert secret not in copied


def test_a_word_clicked_in_the_answer_clears_the_thinkings_stale_highlight(
    window: Any, qloop: Any, send_and_wait: Any
) -> None:
    from PySide6.QtCore import QPoint, Qt
    from PySide6.QtTest import QTest

    panel = window.show_panel("chat")
    send_and_wait(panel)
    qloop.sleep(0.2)
    choice = panel.session.state.choices[0]
    assert len(choice.reasoning) > 20  # the simulator thinks first
    thinking = panel.widgets["thinking"].text
    answer = panel.widgets["answer"].pane(0).text
    inspector = window.inspector
    inspector.view.selectRow(inspector.filter.map_from_source(choice.reasoning.item_at(5)))
    assert thinking.extraSelections()  # the row's words are marked in the thinking
    cursor = answer.textCursor()
    cursor.setPosition(20)
    point = answer.cursorRect(cursor).center() + QPoint(1, 0)
    QTest.mouseClick(answer.viewport(), Qt.MouseButton.LeftButton, pos=point)
    clicked = answer.item_at_position(answer.cursorForPosition(point).position())
    assert inspector.selected_item() == clicked
    assert thinking.extraSelections() == []  # no longer the selected row's: cleared
    # ...and the other way round: the answer's mark goes when the thinking is clicked.
    other = choice.text.item_at(len(choice.text) - 2)
    assert other != clicked
    inspector.view.selectRow(inspector.filter.map_from_source(other))
    assert answer.extraSelections()
    cursor = thinking.textCursor()
    cursor.setPosition(10)
    point = thinking.cursorRect(cursor).center() + QPoint(1, 0)
    QTest.mouseClick(thinking.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert answer.extraSelections() == []
