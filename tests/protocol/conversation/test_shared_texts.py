"""One copy of each long text: the thread's turns, its requests and its answers share them."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from playground.protocol.conversation.model import Thinking, Turn
from playground.protocol.conversation.shared_texts import (
    LONG,
    long_texts,
    shared_value,
    with_texts_of,
)

_LONG_TEXT = "The lighthouse keeper climbed the stairs. " * 4


def _fresh(text: str) -> str:
    """An equal string that is another object (as a body parsed again gives)."""
    return "".join(list(text))


def test_turns_parsed_again_take_the_strings_the_thread_holds() -> None:
    held = [Turn.of("user", _LONG_TEXT), Turn("assistant", (Thinking(_LONG_TEXT + "?"),))]
    again = [
        Turn.of("user", _fresh(_LONG_TEXT)),
        Turn("assistant", (Thinking(_fresh(_LONG_TEXT + "?")),)),
    ]
    assert again[0].text is not held[0].text

    shared = with_texts_of(again, long_texts(held))

    assert shared == again
    assert shared[0].parts[0].text is held[0].parts[0].text  # type: ignore[union-attr]
    assert shared[1].parts[0].text is held[1].parts[0].text  # type: ignore[union-attr]


def test_a_turn_with_nothing_to_share_is_the_same_turn() -> None:
    short = Turn.of("user", "hi")
    other = Turn.of("assistant", _fresh(_LONG_TEXT))
    assert with_texts_of([short, other], {}) == [short, other]
    assert with_texts_of([short], long_texts([other]))[0] is short


def test_short_texts_are_not_kept() -> None:
    assert long_texts([Turn.of("user", "x" * (LONG - 1))]) == {}
    assert long_texts([Turn.of("user", "x" * LONG)]) == {"x" * LONG: "x" * LONG}


def test_a_request_shares_the_messages_the_one_before_it_sent() -> None:
    first = {"model": "m", "messages": [{"role": "user", "content": _LONG_TEXT}]}
    known: dict[str, str] = {}
    kept_first = shared_value(first, {}, known)
    second = {
        "model": "m",
        "messages": [
            {"role": "user", "content": _fresh(_LONG_TEXT)},
            {"role": "assistant", "content": _fresh(_LONG_TEXT + "!")},
            {"role": "user", "content": "and then?"},
        ],
    }
    later: dict[str, str] = {}
    kept_second = shared_value(second, known, later, kept_first)

    assert kept_second == second
    assert kept_second["messages"][0] is kept_first["messages"][0]  # the same message object
    assert set(later) == {_LONG_TEXT, _LONG_TEXT + "!"}


def test_an_equal_request_is_the_request_before_it() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": _LONG_TEXT}], "n": 1}
    kept = shared_value(body, {}, {})
    assert shared_value(_copy(body), {}, {}, kept) is kept


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, str):
        return _fresh(value)
    return value


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=3)
    | st.sampled_from([_LONG_TEXT, _LONG_TEXT * 2]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3)
    ),
    max_leaves=20,
)


@given(_json, _json)
def test_sharing_never_changes_a_value(value: Any, previous: Any) -> None:
    last = {_LONG_TEXT: _LONG_TEXT}
    shared = shared_value(_copy(value), last, {}, previous)
    assert shared == value
    assert type(shared) is type(value)
