"""Images on a user turn in the window, on the real simulator: attached by drop and by paste
(image data and a file URL), shown as chips with their size, sent on the turn, read back by the
simulator, and shown as thumbnails on the sent turn."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from panel_helpers import sim_panel, then_wait
from PIL import Image as PILImage
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage, QKeySequence
from PySide6.QtWidgets import QApplication

from playground.protocol.conversation.model import Image, data_url
from playground.protocol.media import image_mime
from playground.ui.conversation.attachments import ImageChip, describe

ROUTES = ("chat", "responses", "messages")


def _png(width: int = 64, height: int = 48) -> bytes:
    buf = io.BytesIO()
    PILImage.new("RGB", (width, height), (200, 60, 40)).save(buf, "PNG")
    return buf.getvalue()


def _drop(widget: Any, mime: QMimeData) -> bool:
    """Drag ``mime`` onto ``widget`` and drop it there, as a person's mouse would."""
    pos = QPointF(10, 10)
    actions = Qt.DropAction.CopyAction
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(QPoint(10, 10), actions, mime, buttons, mods)
    QApplication.sendEvent(widget, enter)
    drop = QDropEvent(pos, actions, mime, buttons, mods)
    QApplication.sendEvent(widget, drop)
    return drop.isAccepted()


def _paste(widget: Any, mime: QMimeData) -> None:
    from PySide6.QtGui import QKeyEvent

    QApplication.clipboard().setMimeData(mime)
    key = QKeyEvent(QKeyEvent.Type.KeyPress, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier, "v")
    assert key.matches(QKeySequence.StandardKey.Paste)
    QApplication.sendEvent(widget, key)


def _file_url(tmp_path: Path, data: bytes, name: str = "picture.png") -> QMimeData:
    path = tmp_path / name
    path.write_bytes(data)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    return mime


def _image_data() -> QMimeData:
    mime = QMimeData()
    image = QImage()
    assert image.loadFromData(_png())
    mime.setImageData(image)
    return mime


def _sent_images(panel: Any) -> list[Image]:
    user = [t for t in panel.conversation.turns if t.role == "user"]
    return list(user[-1].images)


@pytest.mark.parametrize("route", ROUTES)
def test_an_image_dropped_on_the_prompt_is_sent_and_read(
    route: str, qloop: Any, sim: Any, tmp_path: Path
) -> None:
    panel = sim_panel(route, sim, pace="instant")
    strip = panel.editor.attachments
    assert strip.chips_box.isHidden()
    # A file dragged from a file manager onto the prompt box: the strip takes it, the prompt's
    # text does not get its path.
    assert _drop(panel.editor.prompt.viewport(), _file_url(tmp_path, _png()))
    assert (
        panel.editor.prompt.toPlainText() == "" or "file:" not in panel.editor.prompt.toPlainText()
    )
    assert strip.chip_texts() == [
        "64×48 PNG · " + describe(Image("image/png", _png())).split(" · ")[1]
    ]
    chips = strip.chips_box.findChildren(ImageChip)
    assert len(chips) == 1 and not chips[0].thumb.pixmap().isNull()
    assert "64×48 PNG" in chips[0].info.text()
    assert not strip.chips_box.isHidden()
    # The JSON body already carries the image on the turn.
    assert "base64" in panel.editor.raw.toPlainText()
    panel.editor.prompt.setPlainText("What is in this picture?")
    assert then_wait(qloop, panel) == "complete"
    assert "I see a 64×48 PNG image" in str(panel.session.state.text)
    # Sent: the strip is empty, the turn holds the image and its block shows the thumbnail.
    assert strip.images == [] and strip.chips_box.isHidden()
    assert panel.conversation.attachments == []
    assert [i.mime for i in _sent_images(panel)] == ["image/png"]
    block = panel.conversation.view.blocks[0]
    shown = block.findChildren(ImageChip)
    assert len(shown) == 1 and "64×48 PNG" in shown[0].info.text()
    assert not shown[0].thumb.pixmap().isNull()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", ["image data", "file URL"])
def test_an_image_pasted_into_the_prompt_is_sent(
    route: str, kind: str, qloop: Any, sim: Any, tmp_path: Path
) -> None:
    panel = sim_panel(route, sim, pace="instant")
    panel.editor.prompt.setPlainText("Describe it")
    mime = _image_data() if kind == "image data" else _file_url(tmp_path, _png())
    _paste(panel.editor.prompt, mime)
    strip = panel.editor.attachments
    assert len(strip.images) == 1
    assert strip.chip_texts()[0].startswith("64×48 PNG")
    assert panel.editor.prompt.toPlainText() == "Describe it"  # nothing pasted as text
    assert then_wait(qloop, panel) == "complete"
    assert "I see a 64×48 PNG image" in str(panel.session.state.text)
    assert strip.images == []


def test_a_plain_text_paste_stays_text(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    panel.editor.prompt.setPlainText("")
    mime = QMimeData()
    mime.setText("just words")
    _paste(panel.editor.prompt, mime)
    assert panel.editor.attachments.images == []
    assert panel.editor.prompt.toPlainText() == "just words"


def test_remove_and_urls_and_what_is_no_image(qloop: Any, sim: Any, tmp_path: Path) -> None:
    panel = sim_panel("messages", sim, pace="instant")
    strip = panel.editor.attachments
    strip.add_files([tmp_path / "none.png"])
    assert strip.images == [] and not strip.note.isHidden()
    text = tmp_path / "notes.png"
    text.write_text("hello")
    strip.add_files([text])
    assert "notes.png is not a PNG, JPEG, WebP or GIF image" in strip.note.text()
    # A data: URL is decoded to its bytes; an http(s) URL stays a URL part.
    strip.url.setText(data_url("image/png", _png(20, 10)))
    strip.add_url()
    strip.url.setText("https://example.com/cat.jpg")
    strip.add_url()
    assert [(i.mime, i.data is not None, i.url) for i in strip.images] == [
        ("image/png", True, None),
        ("image/jpeg", False, "https://example.com/cat.jpg"),
    ]
    assert strip.chip_texts()[0].startswith("20×10 PNG")
    long = "https://example.com/" + "a" * 100 + ".png"
    assert describe(Image("image/png", url=long)) == "URL · " + long[:25] + "…"
    assert panel.conversation.attachments == strip.images
    body = json.loads(panel.editor.raw.toPlainText())
    assert "https://example.com/cat.jpg" in json.dumps(body)
    chips = strip.chips_box.findChildren(ImageChip)
    assert chips[1].remove_button is not None
    chips[1].remove_button.click()
    assert [i.url for i in strip.images] == [None]
    assert "example.com" not in panel.editor.raw.toPlainText()


def test_formats_are_told_by_their_bytes() -> None:
    def saved(fmt: str) -> bytes:
        buf = io.BytesIO()
        PILImage.new("RGB", (4, 4)).save(buf, fmt)
        return buf.getvalue()

    assert image_mime(saved("PNG")) == "image/png"
    assert image_mime(saved("JPEG")) == "image/jpeg"
    assert image_mime(saved("WEBP")) == "image/webp"
    assert image_mime(saved("GIF")) == "image/gif"
    assert image_mime(b"hello") is None


def test_a_turn_with_an_image_looks_right(qloop: Any, sim: Any, tmp_path: Path) -> None:
    """The screenshot a reader looks at: an image on a sent turn, in a 1024x700 panel."""
    panel = sim_panel("chat", sim, pace="instant")
    panel.resize(1024, 700)
    buf = io.BytesIO()
    PILImage.radial_gradient("L").convert("RGB").resize((640, 480)).save(buf, "PNG")
    panel.editor.attachments.add_files([_write(tmp_path / "photo.png", buf.getvalue())])
    panel.editor.prompt.setPlainText("What is in this picture?")
    assert then_wait(qloop, panel) == "complete"
    panel.editor.attachments.add_files([_write(tmp_path / "next.png", _png())])
    qloop.sleep(0.1)
    shot = panel.grab()
    assert shot.save(str(tmp_path / "attachment.png"))  # looked at: the chip reads well
    assert "640×480 PNG" in panel.conversation.view.blocks[0].findChildren(ImageChip)[0].info.text()
    # The transcript shows the whole user turn, its thumbnail not cut: the column is as tall as
    # its blocks, and the turn lies inside it.
    block = panel.conversation.view.blocks[0]
    assert block.geometry().bottom() <= panel.conversation.view.body.height()


def test_a_drop_anywhere_on_the_panel_attaches_but_a_capture_is_the_windows(
    qloop: Any, sim: Any, tmp_path: Path
) -> None:
    panel = sim_panel("responses", sim, pace="instant")
    strip = panel.editor.attachments
    assert _drop(panel.stack, _file_url(tmp_path, _png()))  # the answer's side of the panel
    assert len(strip.images) == 1
    # Any other file is left to the window (which opens captures), not called "no image".
    assert not _drop(panel.editor, _file_url(tmp_path, b"data: {}\n\n", "run.sse"))
    assert len(strip.images) == 1 and strip.note.isHidden()


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_many_attachments_wrap_inside_the_form(qloop: Any, sim: Any) -> None:
    panel = sim_panel("chat", sim, pace="instant")
    panel.resize(1024, 700)
    strip = panel.editor.attachments
    long_url = "https://example.com/" + "b" * 80 + ".png"
    strip.add([Image("image/png", _png(60 + i, 40)) for i in range(6)] + [Image(url=long_url)])
    qloop.sleep(0.05)
    # The form is never cut at its side: the chips wrap, none is wider than the column.
    column = panel.editor.parentWidget().width()
    assert panel.editor.minimumSizeHint().width() <= column
    chips = strip.chips_box.findChildren(ImageChip)
    assert len(chips) == 7
    assert len({c.geometry().y() for c in chips}) > 1  # on more than one row
    assert all(c.geometry().right() <= strip.chips_box.width() for c in chips)
