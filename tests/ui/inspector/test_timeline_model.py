"""TimelineModel and TimelineFilter: one row per item, batched inserts, filters, compact storage."""

from __future__ import annotations

import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from widgets_fixtures import CHUNK, capture_bytes, decode

from playground.protocol.sse import SSEParser, parse_all
from playground.protocol.stream import StreamDecoder
from playground.ui.inspector.timeline_filter import TimelineFilter
from playground.ui.inspector.timeline_model import (
    COL_FINDINGS,
    COL_SUMMARY,
    COL_TYPE,
    ITEM_ROLE,
    TimelineModel,
)


def _feed_in_batches(model: TimelineModel, data: bytes, chunk: int) -> StreamDecoder:
    decoder = StreamDecoder()
    for i in range(0, len(data), chunk):
        model.append_items(decoder.feed(data[i : i + chunk], i / 1e5), decoder)
    model.append_items(decoder.finish(1.0), decoder)
    return decoder


def test_rows_equal_items_one_insert_per_append(qtbot: QtBot) -> None:
    data = capture_bytes("chat/openrouter-claude-reasoning-comments")
    model = TimelineModel()
    inserts: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, first, last: inserts.append((first, last)))
    decoder = StreamDecoder()
    batches = 0
    for i in range(0, len(data), 300):
        items = decoder.feed(data[i : i + 300], i / 1e5)
        model.append_items(items, decoder)
        batches += bool(items)
    model.append_items(decoder.finish(1.0), decoder)
    assert model.rowCount() == len(decoder.items) == decoder.state.events + decoder.state.comments
    assert len(inserts) >= batches and all(a <= b for a, b in inserts)
    # contiguous, one insert per non-empty batch
    assert [a for a, _ in inserts] == [0] + [b + 1 for _, b in inserts[:-1]]
    comments = [r for r in range(model.rowCount()) if model.type_name(r) == "comment"]
    assert len(comments) == decoder.state.comments > 0
    fg = model.data(model.index(comments[0], COL_TYPE), Qt.ItemDataRole.ForegroundRole)
    assert fg is not None  # comment rows are dimmed


def test_columns_show_index_time_type_size_summary(qtbot: QtBot) -> None:
    decoder = StreamDecoder()
    model = TimelineModel()
    model.append_items(decoder.feed(CHUNK + b": keep-alive\n\ndata: [DONE]\n\n", 0.0123), decoder)
    model.append_items(decoder.finish(0.02), decoder)
    row = [model.data(model.index(0, c)) for c in range(model.columnCount())]
    assert row[0] == "0" and row[1] == "12.3" and row[2] == "chunk"
    assert row[3] == f"{len(CHUNK)} B"
    assert "hi" in row[4]
    assert [model.type_name(r) for r in range(3)] == ["chunk", "comment", "[DONE]"]
    assert model.data(model.index(2, 0), ITEM_ROLE) == 2
    assert model.headerData(COL_SUMMARY, Qt.Orientation.Horizontal) == "Summary"


def test_findings_badge_counts_and_icon(qtbot: QtBot) -> None:
    data = capture_bytes("messages/anthropic-sonnet4-text-tool-use")  # ends without a blank line
    model = TimelineModel()
    decoder = _feed_in_batches(model, data, 200)
    rows = model.rows_with_findings()
    assert rows
    per_row = {f.item for f in decoder.state.findings if f.item is not None}
    assert set(rows) == per_row
    row = rows[-1]
    badge = model.data(model.index(row, COL_FINDINGS))
    assert badge == str(len(decoder.findings_for(row)))
    assert model.data(model.index(row, COL_FINDINGS), Qt.ItemDataRole.DecorationRole) is not None
    tip = model.data(model.index(row, COL_FINDINGS), Qt.ItemDataRole.ToolTipRole)
    assert decoder.findings_for(row)[0].code in tip
    assert model.data(model.index(0, COL_FINDINGS)) in ("", str(len(decoder.findings_for(0))))


def test_without_decoder_items_from_parse_all(qtbot: QtBot) -> None:
    items = parse_all(CHUNK * 3 + b"event: ping\ndata: {}\n\n")
    model = TimelineModel()
    model.append_items(items[:2], None)
    model.append_items(items[2:], None)
    assert model.rowCount() == 4
    assert model.type_name(3) == "ping"
    assert "hi" in model.summary(0)


def test_filter_by_type_and_text_and_mapping(qtbot: QtBot) -> None:
    data = capture_bytes("chat/openrouter-claude-reasoning-comments")
    model = TimelineModel()
    proxy = TimelineFilter(model)
    decoder = _feed_in_batches(model, data, 4096)
    proxy.set_filter("comment")
    comments = [r for r in range(model.rowCount()) if model.type_name(r) == "comment"]
    assert proxy.rowCount() == len(comments)
    assert [proxy.map_to_source(r) for r in range(proxy.rowCount())] == comments
    assert proxy.map_from_source(comments[-1]) == len(comments) - 1
    assert proxy.map_from_source(model.rowCount() - 1) is None
    assert proxy.data(proxy.index(0, COL_TYPE)) == "comment"
    proxy.set_filter(None, "DONE")
    assert [model.type_name(proxy.map_to_source(r)) for r in range(proxy.rowCount())] == ["[DONE]"]
    proxy.set_filter(None, "openrouter processing")  # case-insensitive, in the raw bytes
    assert proxy.rowCount() == len(comments)
    proxy.clear_filter()
    assert proxy.rowCount() == model.rowCount() == len(decoder.items)


def test_filter_follows_appends(qtbot: QtBot) -> None:
    model = TimelineModel()
    proxy = TimelineFilter(model)
    inserted: list[tuple[int, int]] = []
    proxy.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    decoder = StreamDecoder()
    model.append_items(decoder.feed(CHUNK * 3, 0.0), decoder)
    assert inserted == [(0, 2)] and proxy.rowCount() == 3  # pass-through mirrors the batch
    proxy.set_filter("comment")
    assert proxy.rowCount() == 0
    model.append_items(decoder.feed(b": one\n" + CHUNK + b": two\n", 0.1), decoder)
    assert proxy.rowCount() == 2 and inserted[-1] == (0, 1)
    assert [proxy.map_to_source(r) for r in range(2)] == [3, 5]


def test_findings_only_filter(qtbot: QtBot) -> None:
    data = capture_bytes("messages/anthropic-sonnet4-text-tool-use")
    model = TimelineModel()
    proxy = TimelineFilter(model)
    _feed_in_batches(model, data, 500)
    proxy.set_filter(findings_only=True)
    assert [proxy.map_to_source(r) for r in range(proxy.rowCount())] == model.rows_with_findings()


def test_clear_resets(qtbot: QtBot) -> None:
    model = TimelineModel()
    proxy = TimelineFilter(model)
    decoder = decode(CHUNK * 5)
    model.append_items(decoder.items, decoder)
    model.clear()
    assert model.rowCount() == proxy.rowCount() == 0
    fresh = StreamDecoder()
    model.append_items(fresh.feed(CHUNK, 0.0), fresh)
    assert model.rowCount() == 1 and model.item(0) is fresh.items[0]


def test_storage_is_compact_and_shares_the_items(qtbot: QtBot) -> None:
    n = 50_000
    decoder = StreamDecoder()
    decoder.feed(CHUNK * n, 0.0)
    model = TimelineModel()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(0, n, 5000):
            model.append_items(decoder.items[i : i + 5000], decoder)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert model.rowCount() == n
    assert model.shares_decoder_items  # the decoder's list is referenced, not copied
    assert (after - before) / n < 64  # a few array slots per row (the benchmark budget: 250 B)


def test_rows_stay_aligned_with_item_indexes(qtbot: QtBot) -> None:
    decoder = StreamDecoder()
    items = decoder.feed(CHUNK * 6, 0.0)
    model = TimelineModel()
    model.append_items(items[:2], decoder)
    model.append_items(items[1:3], decoder)  # a repeated row is not shown twice
    model.append_items(items[4:], decoder)  # a gap is filled from the decoder
    assert model.rowCount() == 6
    assert all(model.item(r).index == r for r in range(6))


def test_without_decoder_only_raw_bytes_are_kept(qtbot: QtBot) -> None:
    data = b": hello\n" + CHUNK + b"event: ping\ndata: {}\n: inside\n\n" + CHUNK + b"data: tail"
    items = parse_all(data, chunk_size=7)
    originals = [(type(i), i.index, i.raw, i.start, i.end, getattr(i, "data", None)) for i in items]
    model = TimelineModel()
    model.append_items(items[:3], None)
    model.append_items(items[3:], None)
    assert not model.shares_decoder_items
    del items
    rebuilt = [model.item(r) for r in range(model.rowCount())]
    got = [(type(i), i.index, i.raw, i.start, i.end, getattr(i, "data", None)) for i in rebuilt]
    assert got == originals
    assert [model.type_name(r) for r in range(model.rowCount())] == [
        "comment",
        "chunk",
        "comment",
        "ping",
        "chunk",
        "unterminated",
    ]
    assert model.payload(3) == {}


def test_without_decoder_memory_per_row_is_small(qtbot: QtBot) -> None:
    n = 20_000
    data = CHUNK * n
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        model = TimelineModel()
        parser = SSEParser()
        for i in range(0, len(data), 4096):
            model.append_items(parser.feed(data[i : i + 4096], 0.0), None)
        del parser
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert model.rowCount() == n
    assert (held - len(data)) / n < 120  # the benchmark budget: 250 B per event over its raw bytes


_RAW_PARTS = [
    'data: {"type":"',
    "data: ",
    "a.b",
    '"',
    "\n",
    "\r",
    "é",
    "\xff",
    ": c",
    "event: x",
    ' "chat.completion.chunk"',
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_RAW_PARTS), max_size=12))
def test_type_from_raw_bytes_matches_type_from_data(parts: list[str]) -> None:
    from playground.protocol.sse import data_of_raw
    from playground.protocol.timeline import raw_type as _raw_type

    raw = "".join(parts).encode() + b"\n\n"
    name = _raw_type(raw)
    if name is None:
        return  # the model reads `data` then, as before
    data = data_of_raw(raw)
    if data.startswith('{"type":"'):
        end = data.find('"', 9)
        assert name == (data[9:end] if end > 0 else "message")
    else:
        assert name == "chunk" and '"chat.completion.chunk"' in data[:200]


def test_rows_added_after_their_findings_still_show_them(qtbot: QtBot) -> None:
    # The decoder runs ahead of the timeline (it decodes on the reader thread and the timeline
    # takes its rows in slices): a finding may name a row the model has not added yet.
    data = capture_bytes("messages/anthropic-sonnet4-text-tool-use")
    decoder = StreamDecoder()
    items = [*decoder.feed(data, 0.0), *decoder.finish(1.0)]
    flagged = sorted({f.item for f in decoder.state.findings if f.item is not None})
    assert flagged
    model = TimelineModel()
    cut = flagged[-1]  # the last flagged row comes in the second slice
    model.append_items(items[:cut], decoder)  # findings seen while its row is still missing
    model.append_items(items[cut:], decoder)
    assert model.rows_with_findings() == flagged
    badge = model.data(model.index(cut, COL_FINDINGS))
    assert badge == str(len(decoder.findings_for(cut)))
    assert model.data(model.index(cut, COL_FINDINGS), Qt.ItemDataRole.DecorationRole) is not None
