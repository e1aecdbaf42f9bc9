"""Images on a user turn in the window: the pending strip under the prompt (Attach, paste, drop,
a URL) and the thumbnails with their size that a sent turn shows in the thread."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.ui.conversation.image_sources import (
    carries_images,
    image_from_url,
    images_from_mime,
    read_image_file,
)
from playground.ui.kit.flow_layout import FlowLayout

# The image classes (QImage, QImageReader, QBuffer, QPainter, QUrl...) are imported by the code
# that uses them: the first frame shows an empty strip, and PySide makes each class it is asked
# for, with its enums, when first imported (startup time).
if TYPE_CHECKING:
    from PySide6.QtCore import QMimeData
    from PySide6.QtGui import QImage, QPixmap

    from playground.protocol.conversation.model import Image
    from playground.ui.conversation.thread import ConversationThread

__all__ = [
    "AttachmentStrip",
    "ImageChip",
    "describe",
    "image_row",
    "thumbnail",
]

THUMB = 56  # a thumbnail's longer side, px
URL_CHARS = 26  # about as wide as a chip of bytes (a wider one set the form's minimum)
INFO_WIDTH = 120
FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WebP", "image/gif": "GIF"}
# Decoded thumbnails by image bytes (bytes cache their hash): the thread rebuilds its blocks
# when a run ends, and must not decode every picture again each time.
_THUMBS: dict[bytes, tuple[QImage, int, int]] = {}
_THUMBS_MAX = 64


@runtime_checkable
class FramedWindow(Protocol):
    """A window that paints an empty frame first (the main window): drops wait for its first
    frame with its contents (``firstFrame``), seen through this, not through its class."""

    firstFrame: SignalInstance

    @property
    def painted(self) -> bool: ...


def thumbnail(data: bytes, side: int = THUMB) -> tuple[QImage, int, int]:
    """A thumbnail of ``data`` (decoded at the scaled size, not in full) and its pixel size."""
    cached = _THUMBS.get(data)
    if cached is not None:
        return cached
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImageReader

    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid() and size.width() > 0 and size.height() > 0:
        reader.setScaledSize(size.scaled(side, side, Qt.AspectRatioMode.KeepAspectRatio))
    image = reader.read()
    width, height = (size.width(), size.height()) if size.isValid() else (0, 0)
    if len(_THUMBS) >= _THUMBS_MAX:
        _THUMBS.pop(next(iter(_THUMBS)))
    _THUMBS[data] = (image, width, height)
    return image, width, height


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def describe(image: Image) -> str:
    """What a chip says: ``64×48 PNG · 1.2 KB``, or the URL a server fetches."""
    if image.data is None:
        url = image.url or ""  # cut: a chip's label must not widen the thread past its pane
        return f"URL · {url if len(url) <= URL_CHARS else url[: URL_CHARS - 1] + '…'}"
    _thumb, width, height = thumbnail(image.data)
    fmt = FORMATS.get(image.mime, image.mime)
    dims = f"{width}×{height} " if width and height else ""
    return f"{dims}{fmt} · {_bytes(len(image.data))}"


def _on_checks(image: QImage) -> QPixmap:
    """``image`` over a checkerboard where it is transparent: a mask's clear areas (the ones an
    edit paints) must not look like an empty thumbnail."""
    from PySide6.QtGui import QPainter, QPixmap

    if image.isNull() or not image.hasAlphaChannel():
        return QPixmap.fromImage(image)
    pixmap = QPixmap(image.size())
    pixmap.fill(QColor("#d0d0d0"))
    painter = QPainter(pixmap)
    step = 6
    for y in range(0, image.height(), step):
        for x in range((y // step) % 2 * step, image.width(), 2 * step):
            painter.fillRect(x, y, step, step, QColor("#f4f4f4"))
    painter.drawImage(0, 0, image)
    painter.end()
    return pixmap


class ImageChip(QFrame):
    """One image: its thumbnail, its pixel size, format and byte size, and (pending) Remove."""

    removeRequested = Signal()

    def __init__(self, image: Image, *, removable: bool = False) -> None:
        super().__init__()
        self.setObjectName("imageChip")
        self.setStyleSheet(
            "QFrame#imageChip { border: 1px solid palette(mid); border-radius: 4px; }"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(3, 3, 3, 3)
        layout.setSpacing(4)
        self.thumb = QLabel()
        self.thumb.setFixedSize(THUMB, THUMB)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if image.data is not None:
            pixmap = _on_checks(thumbnail(image.data)[0])
            if not pixmap.isNull():
                self.thumb.setPixmap(pixmap)
            else:
                self.thumb.setText("?")
        else:
            self.thumb.setText("URL")
        layout.addWidget(self.thumb)
        self.info = QLabel(describe(image).replace(" · ", "\n", 1))
        self.info.setStyleSheet("color: gray;")
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setToolTip(image.url or describe(image))
        # At most this wide (a long URL is clipped, its tooltip has it whole): the chip must fit
        # the form's field, whose width is the column's minimum.
        self.info.setMaximumWidth(INFO_WIDTH)
        layout.addWidget(self.info)
        self.remove_button: QToolButton | None = None
        if removable:
            button = QToolButton()
            button.setText("×")
            button.setToolTip("Remove this image")
            button.setAutoRaise(True)
            button.clicked.connect(self.removeRequested)
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.remove_button = button


def image_row(images: Sequence[Image]) -> QWidget:
    """A sent turn's images: their thumbnails with their size, side by side."""
    row = QWidget()
    layout = FlowLayout(row)  # wrapped: many images must not widen the thread past its pane
    for image in images:
        layout.addWidget(ImageChip(image))
    return row


class AttachmentStrip(QWidget):
    """The images for the next user turn: chips with Remove, Attach…, and an image URL box.

    ``bind(thread)`` makes ``ConversationThread.attachments`` the one list: a change here goes
    there (and into the JSON body), and a thread that sent them (or set them) shows here."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.images: list[Image] = []
        self.setAcceptDrops(True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        self.chips_box = QWidget()
        self.chips = FlowLayout(self.chips_box)  # wrapped: the form keeps its width
        self.chips_box.hide()
        outer.addWidget(self.chips_box)
        row = QHBoxLayout()
        # Short words: at 1024 px the form's field column is ~150 px, button and URL box share it.
        self.attach_button = QPushButton("Attach…")
        self.attach_button.setToolTip(
            "Attach a PNG, JPEG, WebP or GIF to the message (or paste one, or drop it here)"
        )
        self.attach_button.clicked.connect(self.browse)
        row.addWidget(self.attach_button)
        self.url = QLineEdit()
        self.url.setPlaceholderText("or image URL")
        self.url.setToolTip(
            "An image URL (http(s), sent as a URL; data:, sent as its bytes), Enter"
        )
        self.url.returnPressed.connect(self.add_url)
        row.addWidget(self.url, 1)
        outer.addLayout(row)
        self.note = QLabel()
        self.note.setStyleSheet("color: #d9534f;")
        self.note.setWordWrap(True)
        self.note.hide()
        outer.addWidget(self.note)
        self._catcher = _Catcher(self)
        self.installEventFilter(self._catcher)
        self._thread: ConversationThread | None = None

    @classmethod
    def under(cls, prompt: QWidget, form: QFormLayout, panel: QWidget) -> AttachmentStrip:
        """A strip in a row of ``form`` under ``prompt``, taking image drops and pastes on the
        prompt and drops anywhere on ``panel`` (the editor)."""
        strip = cls()
        form.addRow("", strip)
        strip.catch(prompt)
        strip.catch(panel)
        return strip

    # ---- what the user does ----------------------------------------------------------------
    def browse(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # a dialog: its class loads when first used

        paths, _ = QFileDialog.getOpenFileNames(
            self, "Attach images", "", "Images (*.png *.jpg *.jpeg *.webp *.gif);;All files (*)"
        )
        self.add_files(paths)

    def add_files(self, paths: Sequence[str | Path]) -> None:
        images, problems = [], []
        for path in paths:
            try:
                images.append(read_image_file(path))
            except ValueError as exc:
                problems.append(str(exc))
        self.add(images, problems)

    def add_url(self) -> None:
        text = self.url.text().strip()
        if not text:
            return
        try:
            image = image_from_url(text)
        except ValueError as exc:
            self.add([], [str(exc)])
            return
        self.url.clear()
        self.add([image])

    def add_mime(self, mime: QMimeData) -> bool:
        """Attach what a drop or paste carries; True when it carried anything for the strip."""
        images, problems = images_from_mime(mime)
        if not images and not problems:
            return False
        self.add(images, problems)
        return True

    def add(self, images: Sequence[Image], problems: Sequence[str] = ()) -> None:
        self.note.setText("; ".join(problems))
        self.note.setVisible(bool(problems))
        if images:
            self.set_images(self.images + list(images))
            self.changed.emit()

    def remove(self, index: int) -> None:
        if 0 <= index < len(self.images):
            self.set_images(self.images[:index] + self.images[index + 1 :])
            self.changed.emit()

    def set_images(self, images: Sequence[Image]) -> None:
        """Show ``images`` (no ``changed``: the caller set them)."""
        self.images = list(images)
        while self.chips.count():
            item = self.chips.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setParent(None)
                widget.deleteLater()
        for i, image in enumerate(self.images):
            chip = ImageChip(image, removable=True)
            chip.removeRequested.connect(lambda i=i: self.remove(i))
            self.chips.addWidget(chip)
        self.chips_box.setVisible(bool(self.images))

    def chip_texts(self) -> list[str]:
        """What each pending chip says (its size, format, bytes), for a reader or a test."""
        return [describe(image) for image in self.images]

    # ---- the thread, drops and pastes ----------------------------------------------------
    def bind(self, thread: ConversationThread) -> None:
        self._thread = thread
        self.catch(thread.panel)  # an image dropped anywhere on the panel (the thread, the answer)
        self.changed.connect(self._to_thread)
        thread.changed.connect(self._from_thread)

    def catch(self, widget: QWidget) -> None:
        """Take image drops (and, on a text box, image pastes) on ``widget`` for the strip."""
        widget.setAcceptDrops(True)
        widget.installEventFilter(self._catcher)
        if callable(getattr(widget, "viewport", None)):  # a text box takes drops on its viewport
            # Not before a main window's first frame: the first bare viewport PySide wraps has
            # it load every QtWidgets class to find its type (65 of them, about 8 ms on a 2-core
            # Xeon), and nothing is dropped on a box not yet on screen. So the viewport is
            # caught when the box is shown, once its window has painted (at once in a window
            # that has no first frame to wait for, a panel on its own).
            self._catcher.viewports.append(widget)

    def _catch_viewports(self) -> None:
        """Catch the drops on the pending text boxes' viewports (their window is painted)."""
        waiting, self._catcher.viewports = self._catcher.viewports, []
        for widget in waiting:
            widget.viewport().installEventFilter(self._catcher)  # type: ignore[attr-defined]

    def _shown(self, widget: QWidget) -> None:
        if widget not in self._catcher.viewports:
            return
        window = widget.window()
        if isinstance(window, FramedWindow) and not window.painted:
            if not self._catcher.waiting:
                self._catcher.waiting = True
                # After the frame, not inside its paint event: the frame reaches the screen first.
                window.firstFrame.connect(lambda: QTimer.singleShot(0, self, self._catch_viewports))
        else:
            self._catch_viewports()

    def _to_thread(self) -> None:
        thread = self._thread
        if thread is not None:
            thread.attachments = list(self.images)
            thread.panel.editor.rebuild()  # the JSON body shows them on the turn

    def _from_thread(self) -> None:
        thread = self._thread
        if thread is not None and thread.attachments != self.images:
            self.set_images(thread.attachments)


class _Catcher(QObject):
    """The event filter that gives the strip image drops and pastes before a text box's own
    handler (which would insert a file's path, or ignore an image)."""

    def __init__(self, strip: AttachmentStrip) -> None:
        super().__init__(strip)
        self.strip = strip
        self.viewports: list[QWidget] = []  # text boxes whose viewport is not caught yet
        self.waiting = False  # for the window's first frame

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        try:
            if event.type() == QEvent.Type.Show and self.viewports:
                assert isinstance(watched, QWidget)
                self.strip._shown(watched)
            return self._filter(event)
        except Exception as exc:  # raised inside Qt's event dispatch, it aborts the program
            self.strip.add([], [f"Could not attach that ({type(exc).__name__}: {exc})"])
            return False

    def _filter(self, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            assert isinstance(event, QDragEnterEvent | QDropEvent)
            if carries_images(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            if carries_images(event.mimeData()) and self.strip.add_mime(event.mimeData()):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            from PySide6.QtGui import QKeySequence

            if event.matches(QKeySequence.StandardKey.Paste):
                mime = QApplication.clipboard().mimeData()
                if mime is not None and carries_images(mime) and self.strip.add_mime(mime):
                    return True
        return False
