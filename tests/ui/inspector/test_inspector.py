"""Inspector: timeline, detail pane (raw, JSON, preview, findings), request/response, linking."""

from __future__ import annotations

import base64
import json

import pytest
from pytestqt.qtbot import QtBot
from widgets_fixtures import CHUNK, capture_bytes, png_bytes, sine_pcm, sse

from playground.protocol.stream import StreamDecoder
from playground.ui.inspector.detail_pane import escape_raw, hex_dump
from playground.ui.inspector.inspector import Inspector


@pytest.fixture(autouse=True)
def _no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAYGROUND_NO_AUDIO", "1")


def _run(inspector: Inspector, data: bytes, chunk: int = 256, route: str = "auto") -> StreamDecoder:
    decoder = StreamDecoder(route)
    inspector.attach(decoder)
    for i in range(0, len(data), chunk):
        inspector.append(decoder.feed(data[i : i + chunk], i / 1e5))
    inspector.append(decoder.finish(1.0))
    return decoder


def _inspector(qtbot: QtBot) -> Inspector:
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(900, 700)
    inspector.show()
    qtbot.waitExposed(inspector)
    return inspector


def test_selecting_a_row_shows_raw_json_and_emits(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = _run(inspector, capture_bytes("chat/openai-gpt4o-text-include-usage"))
    assert inspector.model.rowCount() == len(decoder.items)
    got: list[int] = []
    inspector.itemSelected.connect(got.append)
    inspector.view.selectRow(2)
    assert got == [2]
    assert not inspector.following  # the user looks at a row: the tail stops scrolling
    raw = inspector.detail.raw.toPlainText()
    assert raw.startswith("data: {") and raw.rstrip().endswith("\\n")
    assert "chat.completion.chunk" in raw
    assert set(inspector.detail.tree_top_keys()) >= {"id", "object", "choices"}
    assert "#2" in inspector.detail.header.text()
    inspector.detail.hex_toggle.setChecked(True)
    assert inspector.detail.raw.toPlainText().startswith(
        f"{decoder.items[2].start:08x}  64 61 74 61"
    )


def test_raw_escapes_and_hex() -> None:
    assert escape_raw(b"data: x\r\n\r\n") == "data: x\\r\\n\n\\r\\n\n"
    assert escape_raw(b"a\rb\nc") == "a\\r\nb\\n\nc"
    assert hex_dump(b"AB\n", base=16) == "00000010  41 42 0a" + " " * 39 + "  AB."


def test_select_item_maps_through_the_filter(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = _run(inspector, capture_bytes("chat/openrouter-claude-reasoning-comments"))
    comments = [i for i, it in enumerate(decoder.items) if type(it).__name__ == "SSEComment"]
    inspector.set_type_filter("comment")
    assert inspector.filter.rowCount() == len(comments)
    inspector.select_item(comments[-1])
    assert inspector.selected_item() == comments[-1]
    assert inspector.view.currentIndex().row() == len(comments) - 1  # the filtered row
    assert inspector.filter.type_filter == "comment"
    # An item the filter hides: the filter is cleared so the row can be shown.
    last = len(decoder.items) - 1
    inspector.select_item(last)
    assert inspector.selected_item() == last
    assert not inspector.filter.active
    assert inspector.view.currentIndex().row() == last


def test_select_item_does_not_echo_item_selected(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, CHUNK * 5)
    got: list[int] = []
    inspector.itemSelected.connect(got.append)
    inspector.select_item(3)
    assert got == [] and inspector.selected_item() == 3


def test_text_filter_from_the_search_box(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, CHUNK * 3 + b"data: [DONE]\n\n")
    inspector.set_text_filter("[done]")
    assert inspector.filter.rowCount() == 1
    assert "1 of 4 rows" in inspector.count_label.text()


def test_type_combo_lists_seen_types(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, capture_bytes("chat/openrouter-claude-reasoning-comments"))
    names = [inspector.type_combo.itemText(i) for i in range(inspector.type_combo.count())]
    assert names[0] == "All types" and {"comment", "chunk", "[DONE]"} <= set(names[1:])


def test_image_preview_decoded_on_selection(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    b64 = base64.b64encode(png_bytes(64, 48)).decode()
    data = sse(
        (
            "image_generation.partial_image",
            json.dumps(
                {
                    "type": "image_generation.partial_image",
                    "b64_json": b64,
                    "partial_image_index": 0,
                }
            ),
        )
    )
    _run(inspector, data, chunk=4096, route="images")
    inspector.view.selectRow(0)
    detail = inspector.detail
    assert detail.media is not None and detail.media.kind == "image"
    qtbot.waitUntil(lambda: detail.preview_image.image() is not None, timeout=5000)
    image = detail.preview_image.image()
    assert image is not None and (image.width(), image.height()) == (64, 48)
    assert "64×48" in detail.preview_info.text()
    # The tree cuts the long base64 string instead of showing megabytes.
    item = detail.tree.topLevelItem(1)
    assert item is not None and "chars)" in item.text(1)


def test_audio_preview_for_speech_delta(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    b64 = base64.b64encode(sine_pcm(0.05)).decode()
    data = sse(("speech.audio.delta", json.dumps({"type": "speech.audio.delta", "audio": b64})))
    _run(inspector, data, chunk=4096, route="speech")
    inspector.select_item(0)
    detail = inspector.detail
    assert detail.media is not None and detail.media.kind == "audio"
    assert detail.preview_wave.points > 0
    assert "2,400 B" in detail.preview_info.text()


def test_findings_tab_and_highlight_findings(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = _run(inspector, capture_bytes("messages/anthropic-sonnet4-text-tool-use"))
    with_findings = sorted({f.item for f in decoder.state.findings if f.item is not None})
    assert with_findings
    inspector.highlight_findings()
    assert inspector.selected_item() == with_findings[0]
    detail = inspector.detail
    assert detail.tabs.tabText(detail.tabs.currentIndex()).startswith("Findings (")
    expected = decoder.findings_for(with_findings[0])
    assert detail.findings.count() == len(expected)
    assert expected[0].code in detail.findings.item(0).text()


def test_request_view_redacts_keys(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    inspector.set_request(
        "POST",
        "https://api.example.com/v1/chat/completions?key=sk-urlsecret999",
        {
            "Authorization": "Bearer sk-live-secret-123456",
            "x-api-key": "sk-ant-secret-654321",
            "Content-Type": "application/json",
        },
        b'{"model": "m", "stream": true, "api_key": "sk-body-secret"}',
    )
    text = inspector.request_view.toPlainText()
    for secret in (
        "sk-live-secret-123456",
        "sk-ant-secret-654321",
        "sk-urlsecret999",
        "sk-body-secret",
    ):
        assert secret not in text
    assert "Bearer [redacted]" in text and "Content-Type: application/json" in text
    assert text.startswith("POST https://api.example.com/v1/chat/completions")
    assert '"stream": true' in text  # pretty JSON body
    inspector.set_response(
        429,
        [("content-type", "application/json"), ("retry-after", "7")],
        b'{"error": {"message": "slow down"}}',
    )
    response = inspector.response_view.toPlainText()
    assert response.startswith("HTTP 429") and "retry-after: 7" in response
    assert '"message": "slow down"' in response


def test_hundred_thousand_rows_append_and_scroll(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = StreamDecoder()
    inspector.attach(decoder)
    data = CHUNK * 100_000
    step = len(CHUNK) * 5000
    for i in range(0, len(data), step):
        inspector.append(decoder.feed(data[i : i + step], i / 1e6))
    inspector.append(decoder.finish(2.0))
    assert inspector.model.rowCount() == 100_000
    qtbot.wait(10)
    bar = inspector.view.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0  # following the tail
    inspector.select_item(99_999)
    assert inspector.selected_item() == 99_999
    inspector.set_type_filter("chunk")
    assert inspector.filter.rowCount() == 100_000


def test_follow_tail_only_when_on(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = StreamDecoder()
    inspector.attach(decoder)
    inspector.append(decoder.feed(CHUNK * 200, 0.0))
    bar = inspector.view.verticalScrollBar()
    assert bar.value() == bar.maximum() > 0
    inspector.follow.setChecked(False)
    bar.setValue(0)
    inspector.append(decoder.feed(CHUNK * 200, 0.1))
    assert bar.value() == 0
    inspector.follow.setChecked(True)
    assert bar.value() == bar.maximum()


def test_reset_clears_everything(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, CHUNK * 3)
    inspector.set_request("POST", "http://127.0.0.1/x", {}, None)
    inspector.reset()
    assert inspector.model.rowCount() == 0
    assert inspector.request_view.toPlainText() == ""
    assert inspector.type_combo.count() == 1


def test_scrolling_by_hand_toggles_follow(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QAbstractSlider

    inspector = _inspector(qtbot)
    decoder = StreamDecoder()
    inspector.attach(decoder)
    inspector.append(decoder.feed(CHUNK * 300, 0.0))
    bar = inspector.view.verticalScrollBar()
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)
    assert not inspector.following
    bar.triggerAction(QAbstractSlider.SliderAction.SliderToMaximum)
    assert inspector.following


def test_raw_audio_body_chunk_previewed_from_the_state(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    decoder = StreamDecoder("speech")
    decoder.set_content_type("audio/pcm")
    inspector.attach(decoder)
    body = sine_pcm(0.1)
    inspector.append(decoder.feed(body[:2400], 0.1))
    inspector.append(decoder.feed(body[2400:], 0.2))
    inspector.append(decoder.finish(0.3))
    rows = inspector.model.rowCount()
    assert rows >= 1
    inspector.select_item(rows - 1)
    media = inspector.detail.media
    assert media is not None and media.kind == "audio" and media.key == "body"
    assert inspector.detail.preview_wave.points > 0


def test_attach_starts_a_new_timeline(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    _run(inspector, capture_bytes("chat/openrouter-claude-reasoning-comments"))
    inspector.set_type_filter("comment")
    decoder = _run(inspector, CHUNK * 2)
    assert inspector.model.rowCount() == len(decoder.items) == 2
    assert inspector.filter.rowCount() == 2 and not inspector.filter.active
    names = [inspector.type_combo.itemText(i) for i in range(inspector.type_combo.count())]
    assert names == ["All types", "chunk"]


def test_hex_lines_keep_their_ascii_column_in_a_narrow_inspector(qtbot: QtBot) -> None:
    inspector = _inspector(qtbot)
    inspector.resize(420, 600)  # narrower than a hex line (78 characters)
    _run(inspector, capture_bytes("chat/openai-gpt4o-text-include-usage"))
    inspector.view.selectRow(2)
    detail = inspector.detail
    detail.hex_toggle.setChecked(True)
    qtbot.wait(20)
    document = detail.raw.document()
    first = document.firstBlock()
    assert first.layout().lineCount() == 1  # offset, hex and ASCII on one visual line
    detail.hex_toggle.setChecked(False)
    assert detail.raw.lineWrapMode() == detail.raw.LineWrapMode.WidgetWidth


@pytest.mark.parametrize("width", [330, 480, 900])
def test_columns_shrink_and_elide_rather_than_vanish(qtbot: QtBot, width: int) -> None:
    from playground.ui.inspector.column_fit import MIN_COLUMN, MIN_SUMMARY

    inspector = _inspector(qtbot)
    _run(inspector, capture_bytes("chat/openai-gpt4o-text-include-usage"))
    inspector.resize(width, 600)
    qtbot.wait(100)
    view = inspector.view
    header = view.horizontalHeader()
    room = view.viewport().width()
    sizes = [header.sectionSize(c) for c in range(header.count())]
    assert all(size >= MIN_COLUMN for size in sizes), sizes  # every column still there
    assert sum(sizes) <= room + 1  # nothing past the right edge: no column out of sight
    summary = header.sectionSize(4)
    assert summary >= MIN_SUMMARY - 1
    if width == 900:  # room enough: the chosen widths, the summary stretching
        assert sizes[2] == inspector.columns.wanted[2]
        assert summary > 200


def test_a_run_filling_the_timeline_lays_out_neither_its_viewport_nor_its_filter_bar(
    qtbot: QtBot,
) -> None:
    # Each run starts with an empty timeline and a type filter of "All types" alone: the rows
    # that overflow the view and the types that come in must not resize anything (a relayout
    # and a repaint of the whole inspector in a run's last frame).
    inspector = _inspector(qtbot)
    viewport, combo, search = (
        inspector.view.viewport().width(),
        inspector.type_combo.width(),
        inspector.search.width(),
    )
    _run(inspector, capture_bytes("responses/openai-o3mini-reasoning-summary"), route="responses")
    qtbot.wait(20)  # the posted layout requests are delivered
    assert inspector.model.rowCount() > inspector.view.height() // inspector.view.rowHeight(0)
    types = [inspector.type_combo.itemText(i) for i in range(inspector.type_combo.count())]
    assert "response.reasoning_summary_text.delta" in types  # longer than the box: elided
    assert inspector.view.viewport().width() == viewport
    assert (inspector.type_combo.width(), inspector.search.width()) == (combo, search)
