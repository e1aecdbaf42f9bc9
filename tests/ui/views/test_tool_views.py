"""ToolCallsView and its streaming JSON pretty-printer."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot
from widgets_fixtures import capture_bytes, decode

from playground.protocol.state import StreamState, ToolCallState
from playground.ui.views.json_stream import JsonPrettyStream
from playground.ui.views.tool_calls_view import ToolCallsView

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(JSON_VALUES, st.integers(min_value=1, max_value=7))
@settings(max_examples=150, deadline=None)
def test_streamed_pretty_print_equals_json_dumps(value: object, step: int) -> None:
    text = json.dumps(value)
    pretty = JsonPrettyStream()
    out = "".join(pretty.feed(text[i : i + step]) for i in range(0, len(text), step))
    assert json.loads(out) == value
    assert out == json.dumps(value, indent=2)


def test_pretty_print_of_partial_json_is_a_prefix() -> None:
    pretty = JsonPrettyStream()
    first = pretty.feed('{"city": "Pa')
    assert first == '{\n  "city": "Pa'
    assert pretty.feed('ris", "n": [1,2]}') == 'ris",\n  "n": [\n    1,\n    2\n  ]\n}'


def _call(
    state: StreamState, pieces: list[str], name: str = "get_weather", first: int = 0
) -> ToolCallState:
    call = ToolCallState(key=len(state.tool_calls), id=f"call_{len(state.tool_calls)}", name=name)
    for n, piece in enumerate(pieces):
        call.arguments.append(piece, first + n)
    state.tool_calls.append(call)
    return call


def test_card_per_call_pretty_and_valid_badge(qtbot: QtBot) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    call = _call(state, ['{"ci', 'ty": "Par'])
    view.refresh(state)
    card = view.cards[0]
    assert not card.valid_json and card.json_badge.isHidden()
    assert "get_weather" in card.title.text() and "call_0" in card.title.text()
    removed: list[int] = []
    card.args.document().contentsChange.connect(lambda _p, rem, _a: removed.append(rem))
    call.arguments.append('is"}', 2)
    view.refresh(state)
    assert card.valid_json and not card.json_badge.isHidden()
    assert card.text == json.dumps({"city": "Paris"}, indent=2)
    assert all(r == 0 for r in removed)  # appended, never re-formatted from scratch
    assert view.has_content()


def test_server_tool_marked_and_several_cards(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("messages/anthropic-sonnet46-tool-search-server-tool"), chunk=50)
    calls = decoder.state.tool_calls
    view = ToolCallsView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    assert len(view.cards) == len(calls)
    for card, call in zip(view.cards, calls):
        assert card.server_badge.isHidden() == (not call.server)
        if call.valid_json:
            assert json.loads(card.text) == json.loads(call.arguments_text)
    assert any(call.server for call in calls)


def test_parallel_calls_from_real_capture(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("chat/openai-gpt4o-parallel-tool-calls"), chunk=31)
    view = ToolCallsView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    view.finish(decoder.state)
    assert len(view.cards) == len(decoder.state.tool_calls) >= 2
    assert all(card.valid_json for card in view.cards)


def test_replaced_arguments_are_reformatted(qtbot: QtBot) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    _call(state, ['{"a": 1'])
    view.refresh(state)
    # A .done event may hand over the whole string again: a new buffer with different text.
    replacement = ToolCallState(key=0, id="call_0", name="get_weather")
    replacement.arguments.append('{"b": 2}', 9)
    state.tool_calls[0] = replacement
    view.refresh(state)
    assert json.loads(view.cards[0].text) == {"b": 2}


def test_tool_card_linking(qtbot: QtBot) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    _call(state, ['{"city":', ' "Paris"}'], first=3)
    view.refresh(state)
    view.highlight_item(4)
    sels = view.cards[0].args.extraSelections()
    assert [s.cursor.selectedText() for s in sels] == ['"Paris"\u2029}']
    got: list[int] = []
    view.itemActivated.connect(got.append)
    view.cards[0]._clicked(2)  # a click inside '"city"' (the first piece)
    assert got == [3]


@pytest.mark.parametrize("pieces", [["not json at all"], ["{", "{", "]]]"]])
def test_garbage_arguments_do_not_crash(qtbot: QtBot, pieces: list[str]) -> None:
    view = ToolCallsView()
    qtbot.addWidget(view)
    state = StreamState()
    _call(state, pieces)
    view.refresh(state)
    assert not view.cards[0].valid_json


def test_the_pretty_printer_knows_when_json_cannot_be_whole_yet() -> None:
    from playground.ui.views.json_stream import JsonPrettyStream

    pretty = JsonPrettyStream()
    for piece, still_open in (
        ('{"city": "Pa', True),
        ("ris {}]", True),  # brackets inside a string do not count
        ('", "n": [1, 2', True),
        ("]", True),
        ("}", False),
    ):
        pretty.feed(piece)
        assert pretty.open is still_open, piece


def test_cards_size_to_their_arguments_up_to_a_limit_and_stack(qtbot: QtBot) -> None:
    from playground.ui.views.tool_calls_view import ARGS_MAX_LINES

    view = ToolCallsView()
    qtbot.addWidget(view)
    view.resize(500, 600)
    view.show()
    state = StreamState()
    _call(state, ['{"city": "Paris"}'])
    _call(state, [json.dumps({f"k{i}": i for i in range(40)})], name="many")
    _call(state, ['{"q": "rivers"}'], name="search")
    view.refresh(state)
    qtbot.wait(20)
    small, big, third = view.cards
    line = small.args.fontMetrics().lineSpacing()
    assert small.args.height() < 8 * line  # three lines of JSON, not a fixed 220 px box
    assert big.args.height() > small.args.height()
    assert big.args.height() < (ARGS_MAX_LINES + 4) * line  # capped: it scrolls beyond
    assert big.args.verticalScrollBar().maximum() > 0
    # Stacked top to bottom, none over another, all three in the first 600 px.
    assert small.geometry().bottom() < big.geometry().top()
    assert big.geometry().bottom() < third.geometry().top()
    assert third.geometry().bottom() < 600
