"""Parameters as a user types them: a field emptied is "default" again (its key not sent), and a
stop sequence may hold a comma (one sequence per line)."""

from __future__ import annotations

from typing import Any

import pytest

_HOSTS: list[Any] = []


@pytest.fixture(autouse=True)
def _hosts() -> Any:
    yield
    _HOSTS.clear()


def _editor(qtbot: Any, route: str = "chat") -> Any:
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    from playground.ui.panels.editor import RequestEditor

    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    editor = RequestEditor(route)
    editor.set_model("m")
    elsewhere = QLineEdit()  # somewhere for the focus to go
    layout.addWidget(editor)
    layout.addWidget(elsewhere)
    editor.show_advanced(True)
    host.show()
    qtbot.waitExposed(host)
    _HOSTS.append(host)  # alive until the test's end (qtbot only closes it)
    return editor, elsewhere


def _type(qtbot: Any, box: Any, keys: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClicks(box, keys)


def _clear(qtbot: Any, box: Any, elsewhere: Any) -> None:
    from PySide6.QtCore import Qt

    box.setFocus()
    box.lineEdit().selectAll()
    qtbot.keyClick(box, Qt.Key.Key_Backspace)
    qtbot.keyClick(box, Qt.Key.Key_Return)  # done with the field: Qt's box put the old value back
    elsewhere.setFocus()


@pytest.mark.parametrize(
    ("field", "key", "typed", "sent"),
    [
        ("seed", "seed", "42", 42),
        ("top_p", "top_p", "0.3", 0.3),
        ("frequency", "frequency_penalty", "0.5", 0.5),
        ("n", "n", "2", 2),
    ],
)
def test_a_field_emptied_is_default_again_and_not_sent(
    qtbot: Any, field: str, key: str, typed: str, sent: Any
) -> None:
    editor, elsewhere = _editor(qtbot)
    box = editor.field_widget(field)
    _type(qtbot, box, typed)
    elsewhere.setFocus()
    assert editor.body()[key] == pytest.approx(sent)
    _clear(qtbot, box, elsewhere)
    assert box.text() == "default"
    assert key not in editor.body()


def test_max_tokens_emptied_is_not_sent(qtbot: Any) -> None:
    editor, elsewhere = _editor(qtbot, "messages")
    box = editor.max_tokens
    _type(qtbot, box, "300")
    elsewhere.setFocus()
    assert editor.body()["max_tokens"] == 300
    _clear(qtbot, box, elsewhere)
    assert box.text() == "default" and box.value() == box.minimum()


@pytest.mark.parametrize(("route", "key"), [("chat", "stop"), ("messages", "stop_sequences")])
def test_a_stop_sequence_may_hold_a_comma(qtbot: Any, route: str, key: str) -> None:
    editor, _elsewhere = _editor(qtbot, route)
    stop = editor.field_widget("stop")
    stop.setFocus()
    qtbot.keyClicks(stop, "Human, then")
    from PySide6.QtCore import Qt

    qtbot.keyClick(stop, Qt.Key.Key_Return)
    qtbot.keyClicks(stop, "\\n\\nEND")
    assert editor.body()[key] == ["Human, then", "\n\nEND"]
    fresh, _ = _editor(qtbot, route)
    fresh.set_body(editor.body())  # a body read back shows one sequence per line
    assert fresh.field_widget("stop").text() == "Human, then\n\\n\\nEND"
