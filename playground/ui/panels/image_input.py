"""The Images panel's edit input (an image and an optional mask: drop, Browse, paste), the files
a panel uploads as multipart, and the edit requests a run sent (the headless dump's
``requests``)."""

from __future__ import annotations

import copy
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from PySide6.QtCore import QEvent, QMimeData, QObject, Signal
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.conversation.model import Image
from playground.protocol.media import audio_mime_of
from playground.ui.conversation.attachments import ImageChip
from playground.ui.conversation.image_sources import (
    carries_images,
    images_from_mime,
    read_image_file,
)
from playground.ui.views.routes import route_views

if TYPE_CHECKING:
    from PySide6.QtGui import QDragEnterEvent

    from playground.transport.spec import FileField
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["ImageInput", "ImageSlot", "panel_files", "track_edits"]

_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


class ImageSlot(QWidget):
    """One picture the edit uploads: its chip (thumbnail, size), Browse, Paste and Clear."""

    changed = Signal()

    def __init__(self, what: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.what = what
        self.image: Image | None = None
        self.setAcceptDrops(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.holder = QHBoxLayout()
        self.empty = QLabel(f"No {what}: drop one here, Browse… or Paste")
        self.empty.setStyleSheet("color: gray;")
        self.empty.setWordWrap(True)  # on one line it set the form's minimum at 300 px
        self.holder.addWidget(self.empty, 1)
        self.chip: ImageChip | None = None
        layout.addLayout(self.holder)
        row = QHBoxLayout()
        for text, slot in (("Browse…", self.browse), ("Paste", self.paste), ("Clear", self.clear)):
            button = QPushButton(text)
            button.clicked.connect(slot)
            row.addWidget(button)
            if text == "Clear":
                self.clear_button = button
        row.addStretch(1)
        layout.addLayout(row)
        self.note = QLabel()
        self.note.setStyleSheet("color: #d9534f;")
        self.note.setWordWrap(True)
        self.note.hide()
        layout.addWidget(self.note)
        self.clear_button.setEnabled(False)

    def browse(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # a dialog: its class loads when first used

        path, _ = QFileDialog.getOpenFileName(
            self, f"The {self.what}", "", "Images (*.png *.jpg *.jpeg *.webp);;All files (*)"
        )
        if path:
            self.set_file(path)

    def set_file(self, path: str | Path) -> None:
        try:
            self.set_image(read_image_file(path))
        except ValueError as exc:
            self._say(str(exc))

    def paste(self) -> None:
        mime = QApplication.clipboard().mimeData()
        if mime is None or not self.take(mime):
            self._say("The clipboard holds no image.")

    def take(self, mime: QMimeData) -> bool:
        """The first image a drop or paste carries; True when there was one."""
        images, problems = images_from_mime(mime)
        inline = [i for i in images if i.data is not None]  # an upload needs the bytes
        if inline:
            self.set_image(inline[0])
            return True
        if problems:
            self._say("; ".join(problems))
        return False

    def set_image(self, image: Image | None) -> None:
        self.image = image
        self._say("")
        if self.chip is not None:
            self.chip.setParent(None)
            self.chip.deleteLater()
            self.chip = None
        if image is not None:
            self.chip = ImageChip(image)
            self.holder.insertWidget(0, self.chip)
        self.empty.setVisible(image is None)
        self.clear_button.setEnabled(image is not None)
        self.changed.emit()

    def clear(self) -> None:
        self.set_image(None)

    def _say(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        mime = event.mimeData()
        if mime.hasUrls() or mime.hasImage():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        if self.take(event.mimeData()):
            event.acceptProposedAction()


class ImageInput(QWidget):
    """The edit's input image and optional mask; with an image, Send edits it instead of
    generating (POST /v1/images/edits, multipart)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.source = ImageSlot("input image")
        self.mask_slot = ImageSlot("mask")
        self.mask_slot.setToolTip("Optional: its fully transparent areas are what is edited")
        layout.addWidget(self.source)
        self.mask_label = QLabel("Mask (optional):")
        layout.addWidget(self.mask_label)
        layout.addWidget(self.mask_slot)
        hint = QLabel("With an input image, Send edits it (POST /v1/images/edits).")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: gray;")
        layout.addWidget(hint)
        for slot in (self.source, self.mask_slot):
            slot.changed.connect(self._changed)
        self._changed()

    def _changed(self) -> None:
        on = self.source.image is not None
        self.mask_label.setVisible(on)  # a mask alone edits nothing
        self.mask_slot.setVisible(on)
        self.changed.emit()

    def set_images(self, images: list[Image]) -> None:
        """The first image is the input, a second one the mask (headless ``--attach``)."""
        self.source.set_image(images[0] if images else None)
        self.mask_slot.set_image(images[1] if len(images) > 1 else None)

    def files(self) -> list[FileField]:
        """The multipart files of the edit (none: a generation)."""
        out: list[FileField] = []
        for name, slot in (("image", self.source), ("mask", self.mask_slot)):
            image = slot.image
            if image is None or image.data is None or (name == "mask" and not out):
                continue
            filename = f"{name}.{_EXT.get(image.mime, 'png')}"
            out.append((name, (filename, image.data, image.mime)))
        return out


class _PanelDrops(QObject):
    """An image file dropped anywhere on the Images panel is the edit's input (the window
    would otherwise try to open it as a capture)."""

    def __init__(self, panel: RoutePanel) -> None:
        super().__init__(panel)
        self.slot: ImageSlot = panel.editor.image_input.source
        panel.setAcceptDrops(True)
        panel.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        assert isinstance(event, QDropEvent)
        if not carries_images(event.mimeData()):
            return False
        if kind != QEvent.Type.Drop or self.slot.take(event.mimeData()):
            event.acceptProposedAction()
            return True
        return False


def panel_files(panel: RoutePanel) -> list[Any] | None:
    """What ``panel`` uploads as multipart: transcription's audio file, an edit's image and
    mask; None when it sends JSON. OSError when the audio file cannot be read."""
    upload = route_views(panel.route).upload
    if upload == "image edit":
        return list(panel.editor.image_input.files()) or None
    if upload != "audio":
        return None
    path = panel.editor.file_path()
    if not path:
        return None
    data = Path(path).read_bytes()
    return [("file", (Path(path).name, data, audio_mime_of(Path(path).name)))]


def edit_request(spec: Any) -> dict[str, Any]:
    """A multipart request as the dump shows it: its path and its form's fields, each file as
    ``"<N bytes>"`` (never its bytes)."""
    body: dict[str, Any] = copy.deepcopy(dict(spec.data or {}))
    for name, (_filename, content, _ctype) in spec.files or []:
        body[name] = f"<{len(content)} bytes>"
    return {"path": urlsplit(spec.url).path, "body": body}


def track_edits(panel: RoutePanel) -> list[dict[str, Any]]:
    """The requests ``panel`` sends from now on, kept in the list given back (the dump's
    ``requests``): JSON bodies as they are, multipart ones as their fields. An image dropped
    on the panel becomes the edit's input from now on too."""
    sent: list[dict[str, Any]] = []
    # Weak: a strong reference from the panel's own session back to it is a cycle PySide can
    # crash collecting (ui/conversation/thread.py says the same of the thread).
    ref = weakref.ref(panel)

    def started() -> None:
        owner = ref()
        spec = owner._last_spec if owner is not None else None
        if spec is None:
            return
        if spec.json_body is not None:
            sent.append({"path": urlsplit(spec.url).path, "body": copy.deepcopy(spec.json_body)})
        else:
            sent.append(edit_request(spec))

    panel.session.started.connect(started)
    _PanelDrops(panel)
    return sent
