"""The one JSON reader for untrusted text: depth-limited, and only ValueError for anything."""

from __future__ import annotations

import json
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import playground.protocol.safe_json as safe_json_module
from playground.protocol.safe_json import (
    MAX_DEPTH,
    JsonTooDeep,
    exceeds_depth,
    exceeds_depth_in_pieces,
    loads,
    loads_or,
)


def nested(depth: int, opener: str = "[", closer: str = "]") -> str:
    return opener * depth + closer * depth


def test_reads_ordinary_json_like_the_standard_reader() -> None:
    text = '{"a": [1, 2.5, {"b": "[[[[\\"["}], "c": null, "d": true}'
    assert loads(text) == json.loads(text)
    assert loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 100_000])
def test_too_deep_is_a_value_error_of_its_own(depth: int) -> None:
    for text in (nested(depth), '{"a":' * depth + "1" + "}" * depth):
        with pytest.raises(JsonTooDeep):
            loads(text)
        with pytest.raises(ValueError):
            loads(text.encode())


def test_the_limit_itself_is_read() -> None:
    assert loads(nested(MAX_DEPTH)) is not None
    assert exceeds_depth(nested(MAX_DEPTH)) is False
    assert exceeds_depth(nested(MAX_DEPTH + 1)) is True


def test_brackets_inside_strings_do_not_nest() -> None:
    text = json.dumps(["[" * 1_000, "{" * 1_000, '\\"' + "[" * 1_000])
    assert loads(text) == json.loads(text)


@pytest.mark.parametrize("pad", [10, 300_000])  # the second is over 1 MiB: walked, not copied
def test_long_texts_get_the_same_answer_as_short_ones(pad: int) -> None:
    filler = json.dumps(["[{" * 3, '\\"[', "x"]) + ","
    # The filler is an array itself: one level more.
    for depth, deep in ((MAX_DEPTH - 1, False), (MAX_DEPTH, True), (5_000, True)):
        text = "[" * depth + filler * pad + "0" + "]" * depth
        assert exceeds_depth(text) is deep
        assert exceeds_depth(text.encode()) is deep
        assert exceeds_depth(memoryview(text.encode())) is deep
    # An unclosed string hides no bracket from the count after it.
    assert exceeds_depth('"' + "[" * (MAX_DEPTH + 1) + "x" * (1 << 20)) is True


def test_a_long_text_is_checked_without_copies_of_it() -> None:
    text = "[" * 4_000_000 + "]" * 4_000_000  # an 8 MB tool call's arguments
    raw = text.encode()
    tracemalloc.start()
    try:
        assert exceeds_depth(text) and exceeds_depth(raw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 8


def test_an_escaped_backslash_before_a_quote_ends_the_string() -> None:
    # "\\" closes the string, so the brackets after it are real and nest.
    assert exceeds_depth('["\\\\"' + "[" * 1_000 + "]" * 1_001)


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", "[1,", "", "\ud800", "{'a': 1}", "[1] x"])
def test_what_is_not_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)
    assert loads_or(text, "fallback") == "fallback"


def test_invalid_utf8_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        loads(b'"\xff"')


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(alphabet='[]{}":,\\ 1a', max_size=600))
def test_nothing_raises_but_value_error(data: bytes | str) -> None:
    try:
        loads(data, max_depth=8)
    except ValueError:
        pass


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        ),
        max_leaves=30,
    )
)
def test_depth_agrees_with_the_value(value: object) -> None:
    def depth(node: object) -> int:
        if isinstance(node, list):
            return 1 + max((depth(v) for v in node), default=0)
        if isinstance(node, dict):
            return 1 + max((depth(v) for v in node.values()), default=0)
        return 0

    text = json.dumps(value)
    for limit in range(0, 6):
        assert exceeds_depth(text, limit) == (depth(value) > limit)


_PIECE_TEXT = st.text(alphabet='[]{}"\\ax', max_size=60)


@settings(max_examples=400)
@given(st.lists(_PIECE_TEXT, max_size=8), st.integers(0, 6))
def test_depth_of_pieces_is_the_depth_of_their_join(pieces: list[str], limit: int) -> None:
    """Strings that run across pieces, a backslash at a piece's end, a string that never
    closes, empty pieces: the walk over the pieces answers as the whole text does."""
    whole = "".join(pieces)
    walked = safe_json_module._COPIED_MAX
    # Every text walked piece by piece, however short.
    safe_json_module._COPIED_MAX = 0  # type: ignore[misc]
    try:
        assert exceeds_depth_in_pieces(pieces, limit) is exceeds_depth(whole, limit)
        assert exceeds_depth_in_pieces([whole], limit) is exceeds_depth(whole, limit)
    finally:
        safe_json_module._COPIED_MAX = walked  # type: ignore[misc]


def test_deep_pieces_are_checked_without_joining_them() -> None:
    pieces = ["[" * 4096] * 1000 + ["]" * 4096] * 1000  # 8 MB of arguments as they arrived
    tracemalloc.start()
    try:
        assert exceeds_depth_in_pieces(pieces)
        assert not exceeds_depth_in_pieces(pieces, 4096 * 1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4096 * 2000 // 8
