"""json_out.write_json: the standard library's JSON text, a TextBuffer written from its pieces."""

from __future__ import annotations

import io
import json
import tracemalloc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from playground.protocol.json_out import write_json
from playground.protocol.text_buffer import TextBuffer


def _buffer(pieces: list[str]) -> TextBuffer:
    buffer = TextBuffer()
    for item, piece in enumerate(pieces):
        buffer.append(piece, item)
    return buffer


_TEXTS = st.lists(st.text(), max_size=6)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
_VALUES = st.recursive(
    _SCALARS | _TEXTS.map(_buffer),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _joined(value: Any) -> Any:
    """``value`` with each buffer's text in its place."""
    if isinstance(value, TextBuffer):
        return value.value
    if isinstance(value, list):
        return [_joined(v) for v in value]
    if isinstance(value, dict):
        return {k: _joined(v) for k, v in value.items()}
    return value


@settings(max_examples=200)
@given(_VALUES, st.sampled_from([None, 2]))
def test_the_text_is_the_standard_librarys_with_each_buffer_joined(
    value: Any, indent: int | None
) -> None:
    out = io.StringIO()
    write_json(value, out.write, indent=indent)
    expected = json.dumps(_joined(value), indent=indent, ensure_ascii=False, default=str)
    assert out.getvalue() == expected


def test_a_value_json_cannot_encode_is_written_as_its_text() -> None:
    out = io.StringIO()
    write_json({"when": object, "text": _buffer(["a", '"b\n'])}, out.write)
    assert json.loads(out.getvalue()) == {"when": str(object), "text": 'a"b\n'}


def test_a_long_buffer_is_written_without_joining_it() -> None:
    arguments = _buffer(["[" * 4096] * 1000 + ["]" * 4096] * 1000)  # 8 MB, as it arrived
    written: list[int] = []
    tracemalloc.start()
    try:
        write_json({"tool_calls": [{"arguments": arguments}]}, lambda s: written.append(len(s)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    empty = json.dumps({"tool_calls": [{"arguments": ""}]}, indent=2)
    assert sum(written) == 8_192_000 + len(empty)
    assert len(arguments.parts) > 1  # never joined
    assert peak < 8_192_000 // 8
