"""TextBuffer and its compact Origins: append and extend agree; the views read like a list."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import playground.protocol as protocol
from playground.protocol.state import Origins, TextBuffer

# text_buffer.py run by the interpreter (its C-call path), beside the installed build.
SOURCE_BUFFER = protocol.load_source("text_buffer", "_text_buffer_from_source")

pieces = st.lists(st.tuples(st.text(max_size=5), st.integers(0, 50)), max_size=30)


@given(pieces, st.integers(0, 30))
def test_extend_equals_append_one_by_one(parts: list[tuple[str, int]], split: int) -> None:
    one = TextBuffer()
    for text, item in parts:
        one.append(text, item)
    many = TextBuffer()
    head = [(t, i) for t, i in parts[:split] if t]
    tail = [(t, i) for t, i in parts[split:] if t]
    many.extend([t for t, _ in head], [i for _, i in head])
    many.extend([t for t, _ in tail], (i for _, i in tail))
    assert many.value == one.value and len(many) == len(one)
    assert many.origins == one.origins == list(one.origins)
    # The list of pairs, as a plain list of tuples would give it.
    pairs: list[tuple[int, int]] = []
    at = 0
    for text, item in parts:
        if text:
            pairs.append((at, item))
            at += len(text)
    assert list(one.origins) == pairs
    assert one.origins[:] == pairs
    if pairs:
        assert one.origins[-1] == pairs[-1] and one.origins[0][1] == pairs[0][1]
    for offset in range(len(one)):
        expected = max((p for p in pairs if p[0] <= offset), default=None)
        assert one.item_at(offset) == (expected[1] if expected else None)
    for item in {i for _, i in pairs}:
        spans = [
            (start, pairs[k + 1][0] if k + 1 < len(pairs) else len(one))
            for k, (start, origin) in enumerate(pairs)
            if origin == item
        ]
        assert one.spans_of(item) == spans


def test_origins_is_a_sequence() -> None:
    origins = Origins()
    assert not origins and len(origins) == 0 and origins == []
    origins.append((0, 3))
    origins.extend([(5, 4)])
    assert origins == [(0, 3), (5, 4)] and origins[1] == (5, 4)
    assert [item for _, item in origins] == [3, 4]
    assert repr(origins) == "Origins([(0, 3), (5, 4)])"
    assert TextBuffer().item_at(0) is None


@given(st.lists(st.lists(st.text(max_size=4), max_size=8), max_size=12), st.integers(0, 9))
def test_the_source_and_the_build_extend_alike(runs: list[list[str]], first: int) -> None:
    built, source = TextBuffer(), SOURCE_BUFFER.TextBuffer()
    for texts in runs:
        for buffer in (built, source):
            buffer.extend(list(texts), range(first, first + len(texts)))
        first += len(texts)
    assert built.value == source.value and len(built) == len(source)
    assert list(built.origins) == list(source.origins)
    assert not SOURCE_BUFFER._COMPILED


@given(st.lists(st.lists(st.text(max_size=4), max_size=8), max_size=12), st.integers(0, 9))
def test_a_run_added_as_one_piece_equals_its_pieces_one_by_one(
    runs: list[list[str]], first: int
) -> None:
    # extend_run: a read's plain text as one str and each token's length (template_match).
    one, built, source = TextBuffer(), TextBuffer(), SOURCE_BUFFER.TextBuffer()
    for texts in runs:
        for i, text in enumerate(texts):
            one.append(text, first + i)
        for buffer in (built, source):
            buffer.extend_run("".join(texts), [len(text) for text in texts], first)
        first += len(texts)
    for buffer in (built, source):
        assert buffer.value == one.value and len(buffer) == len(one)
        assert list(buffer.origins) == list(one.origins)
        assert [buffer.item_at(i) for i in range(len(one))] == [
            one.item_at(i) for i in range(len(one))
        ]


def _interpreted_text_buffer() -> type:
    """TextBuffer run by the interpreter (the installed one may be compiled, where a call never
    lets another thread in half way: the race this guards against would not show)."""
    import importlib.util
    from pathlib import Path

    import playground.protocol

    source = Path(playground.protocol.__file__).parent / "text_buffer.py"
    spec = importlib.util.spec_from_file_location("_interpreted_text_buffer", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TextBuffer  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", ["installed", "interpreted"])
def test_a_reader_thread_joining_while_another_appends_loses_no_piece(kind: str) -> None:
    # A live run's buffer grows on its reader thread while the UI thread reads `value` (which
    # joins and replaces the pieces): every piece appended must survive every join.
    import sys
    import threading

    buffer = TextBuffer() if kind == "installed" else _interpreted_text_buffer()()
    pieces = [f"<{i}>" for i in range(60_000)]
    done = threading.Event()

    def write() -> None:
        for i in range(0, len(pieces), 3):
            buffer.append(pieces[i], i)
            buffer.extend(pieces[i + 1 : i + 3], [i + 1, i + 2])
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        writer = threading.Thread(target=write)
        writer.start()
        seen = 0
        while not done.is_set():
            text = buffer.value
            assert text == "".join(pieces)[: len(text)]  # always a whole prefix
            seen = max(seen, len(text))
        writer.join()
    finally:
        sys.setswitchinterval(interval)
    assert buffer.value == "".join(pieces) and len(buffer) == len(buffer.value)


@pytest.mark.parametrize("cls", [TextBuffer, SOURCE_BUFFER.TextBuffer])
@given(parts=pieces, limit=st.integers(-1, 200))
def test_pieces_and_head_read_the_text_without_joining_it(
    cls: type[TextBuffer], parts: list[tuple[str, int]], limit: int
) -> None:
    buffer = cls()
    for text, item in parts:
        buffer.append(text, item)
    whole = "".join(text for text, _ in parts)
    kept = list(buffer.parts)
    assert "".join(buffer.pieces()) == whole
    assert buffer.head(limit) == whole[: max(0, limit)]
    assert buffer.parts == kept  # still the pieces: neither read joined them
    assert buffer.value == whole and "".join(buffer.pieces()) == whole  # and after a join
