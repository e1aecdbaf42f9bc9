"""DetailPane: one timeline row in depth — raw bytes, JSON tree, image/audio preview, findings."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from .tree_expansion import TreeExpansion

if TYPE_CHECKING:
    # The pages' Qt classes load with the pages (each costs its Python enums).
    from PySide6.QtWidgets import (
        QListWidget,
        QPushButton,
        QStackedWidget,
        QTreeWidget,
        QTreeWidgetItem,
    )

    from ..kit.image_decode import ImageCanvas, ImageDecoder
    from ..views.audio_player import PcmPlayer
    from ..views.waveform import WaveformWidget
    from .payload_media import Media
    from .timeline_model import TimelineModel

__all__ = ["DetailPane", "escape_raw", "hex_dump"]

RAW_LIMIT = 64 * 1024  # characters of raw text shown (a 10 MB image event stays responsive)
RAW_FOLD = 512  # a longer line is folded into pieces: Qt lays out one huge paragraph in seconds
HEX_LIMIT = 64 * 1024  # bytes in the hex view
TREE_STRING = 200  # longer strings (base64) are cut in the tree
TREE_CHILDREN = 2000


def escape_raw(raw: bytes, limit: int = RAW_LIMIT) -> str:
    """Raw bytes as text with CR and LF made visible (``\\r``, ``\\n``) and the line kept."""
    text = raw[:limit].decode("utf-8", "replace")
    mark = "\ue000"  # a private-use stand-in for "a line break goes here"
    text = text.replace("\r\n", "\\r\\n" + mark).replace("\r", "\\r" + mark)
    text = text.replace("\n", "\\n" + mark).replace(mark, "\n")
    text = "\n".join(_fold(line) for line in text.split("\n"))
    if len(raw) > limit:
        text += f"\n… {len(raw) - limit:,} more bytes"
    return text


def _fold(line: str) -> str:
    if len(line) <= RAW_FOLD:
        return line
    return "\n".join(line[i : i + RAW_FOLD] for i in range(0, len(line), RAW_FOLD))


def hex_dump(raw: bytes, base: int = 0, limit: int = HEX_LIMIT) -> str:
    """Offset, 16 bytes of hex and their ASCII per line; ``base`` is the stream offset."""
    lines = []
    for i in range(0, min(len(raw), limit), 16):
        chunk = raw[i : i + 16]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{base + i:08x}  {hexes:<47}  {text}")
    if len(raw) > limit:
        lines.append(f"… {len(raw) - limit:,} more bytes")
    return "\n".join(lines)


class DetailPane(QWidget):
    def __init__(
        self,
        model: TimelineModel | Callable[[], TimelineModel],
        parent: QWidget | None = None,
    ) -> None:
        """``model``: the timeline model, or where to get it when a row is first shown (the
        inspector builds its model after the first frame, to keep startup short)."""
        super().__init__(parent)
        self._model_source = model
        self.row: int | None = None
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.header = QLabel("Select an event to see its bytes, JSON and findings.", self)
        self.header.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.header)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)

        raw_page = QWidget()
        raw_layout = QVBoxLayout(raw_page)
        raw_layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.offsets = QLabel(raw_page)
        bar.addWidget(self.offsets, 1)
        self.hex_toggle = QCheckBox("Hex", raw_page)
        self.hex_toggle.toggled.connect(self._show_raw)
        bar.addWidget(self.hex_toggle)
        raw_layout.addLayout(bar)
        self.raw = QPlainTextEdit(raw_page)
        self.raw.setReadOnly(True)
        self.raw.setFont(mono)
        self.raw.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        raw_layout.addWidget(self.raw)
        self.tabs.addTab(raw_page, "Raw")

        # The JSON, Preview and Findings pages (a tree, an image canvas, a waveform and an audio
        # player, with their imports) are built when the first event is selected or one of them
        # is opened, not before the first frame (startup). Until then each tab holds an
        # empty page of the same size.
        self._pages: list[tuple[QWidget, QVBoxLayout]] = []
        for title in ("JSON", "Preview", "Findings"):
            page = QWidget()
            page_layout = QVBoxLayout(page)
            page_layout.setContentsMargins(0, 0, 0, 0)
            self._pages.append((page, page_layout))
            self.tabs.addTab(page, title)
        self._built = False
        self._media: Media | None = None
        self._player: PcmPlayer | None = None
        self.tabs.currentChanged.connect(self._tab_opened)
        self._expansion = TreeExpansion()
        self._tree_kind: str | None = None  # the event type the JSON tree shows

    def _tab_opened(self, index: int) -> None:
        if index > 0:
            self._build()

    def _build(self) -> None:
        """Fill the JSON, Preview and Findings pages (once)."""
        if self._built:
            return
        self._built = True
        from PySide6.QtWidgets import QListWidget, QPushButton, QStackedWidget, QTreeWidget

        from ..kit.image_decode import ImageCanvas, ImageDecoder
        from ..views.waveform import WaveformWidget

        (json_page, json_layout), (preview, preview_layout), (findings_page, findings_layout) = (
            self._pages
        )
        self._tree = QTreeWidget(json_page)
        self._tree.setHeaderLabels(["Key", "Value"])
        self._tree.setColumnWidth(0, 200)
        self._tree.setUniformRowHeights(True)
        json_layout.addWidget(self._tree)

        self._preview_info = QLabel("This event carries no image or audio.", preview)
        self._preview_info.setWordWrap(True)
        preview_layout.addWidget(self._preview_info)
        self._preview_stack = QStackedWidget(preview)
        self._preview_image = ImageCanvas(self._preview_stack)
        self._preview_stack.addWidget(self._preview_image)
        audio_page = QWidget()
        audio_layout = QVBoxLayout(audio_page)
        self._preview_wave = WaveformWidget(audio_page)
        audio_layout.addWidget(self._preview_wave, 1)
        self._preview_play = QPushButton("▶ Play this chunk", audio_page)
        self._preview_play.clicked.connect(self._play_chunk)
        audio_layout.addWidget(self._preview_play)
        self._preview_stack.addWidget(audio_page)
        preview_layout.addWidget(self._preview_stack, 1)
        self._preview_stack.hide()
        self._decoder = ImageDecoder(self)
        self._decoder.decoded.connect(self._image_decoded)

        self._findings = QListWidget(findings_page)
        self._findings.setWordWrap(True)
        findings_layout.addWidget(self._findings)
        # A child added to a page already shown would only show on a later turn of the loop.
        for widget in (self._tree, self._preview_info, self._findings):
            widget.show()

    @property
    def model(self) -> TimelineModel:
        source = self._model_source
        return source() if callable(source) else source

    # The pages' widgets, built on first use.
    @property
    def tree(self) -> QTreeWidget:
        self._build()
        return self._tree

    @property
    def preview_info(self) -> QLabel:
        self._build()
        return self._preview_info

    @property
    def preview_stack(self) -> QStackedWidget:
        self._build()
        return self._preview_stack

    @property
    def preview_image(self) -> ImageCanvas:
        self._build()
        return self._preview_image

    @property
    def preview_wave(self) -> WaveformWidget:
        self._build()
        return self._preview_wave

    @property
    def preview_play(self) -> QPushButton:
        self._build()
        return self._preview_play

    @property
    def decoder(self) -> ImageDecoder:
        self._build()
        return self._decoder

    @property
    def findings(self) -> QListWidget:
        self._build()
        return self._findings

    # -- public --------------------------------------------------------------------------------

    def clear(self) -> None:
        self.row = None
        self.header.setText("Select an event to see its bytes, JSON and findings.")
        self.raw.clear()
        self.offsets.clear()
        self.tabs.setTabText(3, "Findings")
        if not self._built:
            return  # nothing was ever shown on the other pages
        self._expansion.remember(self._tree_kind, self.tree)
        self._tree_kind = None
        self.tree.clear()
        self.findings.clear()
        self._clear_preview()

    def show_row(self, row: int) -> None:
        """Show ``row``: its JSON tree and preview are built now, on selection, never before."""
        model = self.model
        if not 0 <= row < model.rowCount():
            self.clear()
            return
        self.row = row
        item = model.item(row)
        size = model.size_of(row)
        self.header.setText(
            f"<b>#{row}</b> · {model.type_name(row)} · {size:,} B · "
            f"{model.time_of(row) * 1000:.1f} ms"
        )
        self.offsets.setText(f"bytes {item.start:,}–{item.end:,} of the response body")
        self._show_raw()
        found = model.findings_of(row)
        self.tabs.setTabText(3, f"Findings ({len(found)})" if found else "Findings")
        self.findings.clear()
        for finding in found:
            entry = _list_item(f"{finding.severity}: {finding.code} — {finding.message}")
            self.findings.addItem(entry)
        if not found:
            self.findings.addItem("No findings on this event.")
        self._build_tree()
        self._build_preview()

    def refresh_findings(self) -> None:
        if self.row is not None:
            current = self.tabs.currentIndex()
            self.show_row(self.row)
            self.tabs.setCurrentIndex(current)

    def show_tab(self, name: str) -> None:
        for i in range(self.tabs.count()):
            if self.tabs.tabText(i).startswith(name):
                self.tabs.setCurrentIndex(i)
                return

    @property
    def media(self) -> Media | None:
        return self._media

    def tree_top_keys(self) -> list[str]:
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item.text(0) for item in items if item is not None]

    # -- tabs ----------------------------------------------------------------------------------

    def _show_raw(self) -> None:
        # The parser's classes load with the first row shown (a compiled module: one more
        # shared library the first frame does not need; startup).
        from playground.protocol.sse import SSEEvent

        if self.row is None:
            return
        item = self.model.item(self.row)
        raw = item.raw
        if not raw and isinstance(item, SSEEvent) and item.event == "audio":
            self.raw.setPlainText(f"(raw audio body chunk of {item.end - item.start:,} bytes)")
            return
        # A hex line is a unit (offset, 16 bytes, their ASCII): wrapped at the widget's width
        # its ASCII column fell onto the next line. It scrolls sideways instead; raw text wraps.
        hexed = self.hex_toggle.isChecked()
        mode = QPlainTextEdit.LineWrapMode
        wrap = mode.NoWrap if hexed else mode.WidgetWidth
        if self.raw.lineWrapMode() != wrap:
            self.raw.setLineWrapMode(wrap)
        if hexed:
            self.raw.setPlainText(hex_dump(raw, item.start))
        else:
            self.raw.setPlainText(escape_raw(raw))

    def _build_tree(self) -> None:
        from playground.protocol.sse import SSEComment, SSEEvent, SSEUnterminated

        row = self.row
        assert row is not None
        self._expansion.remember(self._tree_kind, self.tree)
        self._tree_kind = self.model.type_name(row)
        self.tree.clear()
        item = self.model.item(row)
        payload = self.model.payload(row)
        if payload is None:
            if isinstance(item, SSEComment):
                note = f"comment: {item.text}"
            elif isinstance(item, SSEUnterminated):
                note = "unterminated: never dispatched, so never parsed"
            elif isinstance(item, SSEEvent) and item.data.strip() == "[DONE]":
                note = "[DONE] — the end-of-stream sentinel, not JSON"
            else:
                note = "not JSON"
            self.tree.addTopLevelItem(_tree_item([note, ""]))
            return
        root = self.tree.invisibleRootItem()
        _fill(root, payload, 0)
        self.tree.expandToDepth(1)
        self._expansion.restore(self._tree_kind, self.tree)

    def _build_preview(self) -> None:
        from playground.protocol.sse import SSEEvent

        from .payload_media import find_media

        self._clear_preview()
        row = self.row
        assert row is not None
        item = self.model.item(row)
        name = item.event if isinstance(item, SSEEvent) else ""
        try:
            media = find_media(self.model.payload(row), name or "")
            if media is None and name == "audio":
                media = self._body_audio(row)
        except Exception:
            media = None
        self._media = media
        if media is None:
            self.preview_info.setText("This event carries no image or audio.")
            return
        self.preview_stack.show()
        if media.kind == "image":
            self.preview_stack.setCurrentIndex(0)
            self.preview_info.setText(
                f"Image in “{media.key}”: {media.format}, {len(media.data):,} bytes — decoding…"
            )
            self.decoder.submit(row, media.data)
        else:
            self.preview_stack.setCurrentIndex(1)
            seconds = len(media.data) / 48000
            fmt = media.format or "pcm"
            note = f" · {seconds:.2f} s at 24 kHz" if fmt == "pcm" else ""
            self.preview_info.setText(f"Audio in “{media.key}”: {fmt}, {len(media.data):,} B{note}")
            if fmt == "pcm":
                self.preview_wave.add(media.data)
                self.preview_wave.flush()

    def _body_audio(self, row: int) -> Media | None:
        """A raw audio body's chunk (music's stream_url, speech without SSE): from the state."""
        decoder = self.model.decoder
        audio = decoder.state.audio if decoder is not None else None
        if audio is None:
            return None
        from .payload_media import Media

        origins = audio.origins
        for i, (offset, item) in enumerate(origins):
            if item == row:
                end = origins[i + 1][0] if i + 1 < len(origins) else len(audio.data)
                return Media("audio", bytes(audio.data[offset:end]), "body", audio.format)
        return None

    def _image_decoded(self, key: object, result: object) -> None:
        from ..kit.image_decode import DecodedImage

        if key != self.row or not isinstance(result, DecodedImage) or self._media is None:
            return
        media = self._media
        if result.error:
            self.preview_info.setText(f"Image in “{media.key}”: cannot decode ({result.error})")
            return
        self.preview_image.set_image(result.display_image())
        self.preview_info.setText(
            f"Image in “{media.key}”: {result.width}×{result.height} {media.format}, "
            f"{len(media.data):,} bytes"
        )

    def _clear_preview(self) -> None:
        self.decoder.cancel_all()
        self._media = None
        self.preview_image.set_image(None)
        self.preview_wave.clear()
        self.preview_stack.hide()
        self.preview_info.setText("This event carries no image or audio.")
        if self._player is not None:
            self._player.stop()
            self._player.deleteLater()
            self._player = None

    def _play_chunk(self) -> None:
        if self._media is None or self._media.kind != "audio":
            return
        from ..views.audio_player import NO_AUDIO_NOTE, NoAudioOutput, PcmPlayer

        try:
            if self._player is None:
                self._player = PcmPlayer(parent=self)
            self._player.feed(self._media.data)
        except NoAudioOutput:
            self.preview_info.setText(NO_AUDIO_NOTE)


def _short(value: Any) -> str:
    if isinstance(value, str):
        # JSON spelling (double quotes, \n escapes), cut when long (base64 images).
        if len(value) > TREE_STRING:
            cut = json.dumps(value[:TREE_STRING], ensure_ascii=False)
            return cut[:-1] + f'…" ({len(value):,} chars)'
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _fill(parent: QTreeWidgetItem, value: Any, depth: int) -> None:
    if isinstance(value, dict):
        entries: Any = value.items()
    elif isinstance(value, list):
        entries = enumerate(value)
    else:
        parent.addChild(_tree_item(["", _short(value)]))
        return
    for n, (key, child) in enumerate(entries):
        if n >= TREE_CHILDREN:
            parent.addChild(_tree_item(["…", f"{len(value) - n:,} more"]))
            break
        label = f"[{key}]" if isinstance(key, int) else str(key)
        if isinstance(child, dict | list):
            summary = f"{{{len(child)}}}" if isinstance(child, dict) else f"[{len(child)}]"
            node = _tree_item([label, summary])
            parent.addChild(node)
            if depth < 32:
                _fill(node, child, depth + 1)
        else:
            parent.addChild(_tree_item([label, _short(child)]))


def _tree_item(texts: list[str]) -> QTreeWidgetItem:
    from PySide6.QtWidgets import QTreeWidgetItem

    return QTreeWidgetItem(texts)


def _list_item(text: str) -> Any:
    from PySide6.QtWidgets import QListWidgetItem

    return QListWidgetItem(text)
