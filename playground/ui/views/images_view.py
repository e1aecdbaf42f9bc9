"""ImagesView: partial images the moment they arrive, a filmstrip of them, the final image, Save."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol.state import ImageState, StreamState
from playground.ui.kit.image_decode import (
    DecodedImage,
    ImageCanvas,
    ImageDecoder,
    sniff_image_format,
)

from .image_prefetch import ImagePrefetch, early_result

__all__ = ["ImagesView"]


def _human(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.1f} MB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KB"
    return f"{n} B"


def _image_bytes(image: ImageState) -> bytes:
    return bytes(image.data)


class ImagesView(QWidget):
    """Each partial (docs/protocol.md §5: 0-3 of them, maybe after the final) is decoded off the UI
    thread and shown as soon as it is ready; the strip lists them with index and arrival time."""

    itemActivated = Signal(int)
    imageShown = Signal(int)  # position in state.images, once its pixels are on screen

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.canvas = ImageCanvas(
            self, "Images appear here: each partial as it arrives, then the final."
        )
        layout.addWidget(self.canvas, 1)
        row = QHBoxLayout()
        self.caption = QLabel(self)
        # Wrapped, so the caption's one line never sets the output's minimum width: the form
        # beside it keeps the room it needs at 1024 px.
        self.caption.setWordWrap(True)
        row.addWidget(self.caption, 1)
        self.save_button = QPushButton("Save…", self)
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._save_clicked)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.strip = QListWidget(self)
        self.strip.setViewMode(QListView.ViewMode.IconMode)
        self.strip.setFlow(QListView.Flow.LeftToRight)
        self.strip.setWrapping(False)
        self.strip.setMovement(QListView.Movement.Static)
        self.strip.setIconSize(QSize(72, 72))
        self.strip.setFixedHeight(120)
        self.strip.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.strip.currentRowChanged.connect(self._strip_selected)
        self.strip.itemClicked.connect(self._strip_clicked)
        layout.addWidget(self.strip)
        self.decoder = ImageDecoder(self)
        self.decoder.decoded.connect(self._decoded)
        # Give it the run's network reads (``feed``, any thread; the session's chunk tap) and an
        # image starts decoding while its event still arrives, shown only once the parsed event
        # proves it has the same base64.
        self.prefetch = ImagePrefetch()
        self._images: list[ImageState] = []
        self._decoded_images: dict[int, DecodedImage] = {}
        self._shown: int | None = None  # position shown in the canvas
        self._pinned = False  # the user picked one in the filmstrip: stop following new ones
        self._updating = False
        self.reset()

    # -- contract ------------------------------------------------------------------------------

    def reset(self) -> None:
        self.decoder.cancel_all()
        self.prefetch.reset()
        self.prefetch.fit = self._fit()
        self._images = []
        self._source: list[ImageState] | None = None
        self._decoded_images = {}
        self._shown = None
        self._pinned = False
        self._updating = True
        self.strip.clear()
        self._updating = False
        self.canvas.set_image(None)
        self.caption.setText("")
        self.save_button.setEnabled(False)

    def refresh(self, state: StreamState) -> None:
        if state.images is not self._source:
            if self._source is not None:
                self.reset()  # a new run's state
            self._source = state.images
        fit = self.prefetch.fit = self._fit()
        for position in range(len(self._images), len(state.images)):
            image = state.images[position]
            self._images.append(image)
            entry = QListWidgetItem(self._label(image) + "\n…")
            entry.setData(Qt.ItemDataRole.UserRole, position)
            entry.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self._updating = True
            self.strip.addItem(entry)
            self._updating = False
            # The worker takes the early decode if it has exactly this image's base64; else it
            # reads `data` (a large image's base64 is decoded there).
            b64 = image.b64
            guess = self.prefetch.claim(len(b64)) if b64 is not None else None
            self.decoder.submit(
                position,
                partial(_image_bytes, image),
                fit,
                first=partial(early_result, guess, image) if b64 is not None else None,
            )
            self.save_button.setEnabled(True)
            if not self._pinned:
                self.caption.setText(self._caption(image) + " · decoding…")

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        self.prefetch.reset()  # an image cut off by the end is never claimed: stop its decode

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.prefetch.fit = self._fit()  # the layout has sized the canvas by now

    def highlight_item(self, item: int) -> None:
        for position, image in enumerate(self._images):
            if image.item == item:
                self._pinned = True
                self.strip.setCurrentRow(position)
                self._show(position)
                return

    def has_content(self) -> bool:
        return bool(self._images)

    # -- queries and actions -------------------------------------------------------------------

    @property
    def pending(self) -> bool:
        """Images still decoding (the headless screenshot waits for them)."""
        return self.decoder.busy or len(self._decoded_images) < len(self._images)

    @property
    def shown_position(self) -> int | None:
        return self._shown

    def decoded(self, position: int) -> DecodedImage | None:
        return self._decoded_images.get(position)

    def save_image(self, path: str | Path, position: int | None = None) -> None:
        """Write the original bytes of image ``position`` (default: shown, else last)."""
        if position is None:
            position = self._shown if self._shown is not None else len(self._images) - 1
        Path(path).write_bytes(bytes(self._images[position].data))

    def _save_clicked(self) -> None:
        if not self._images:
            return
        position = self._shown if self._shown is not None else len(self._images) - 1
        image = self._images[position]
        ext = image.output_format or sniff_image_format(bytes(image.data[:16])) or "png"
        name = f"image-{'final' if image.final else f'partial-{image.index}'}.{ext}"
        path, _ = QFileDialog.getSaveFileName(self, "Save image", name)
        if path:
            self.save_image(path, position)

    # -- internals -----------------------------------------------------------------------------

    def _fit(self) -> tuple[int, int]:
        """The box images are decoded for: the canvas, at least 512 and at most 2048 px."""
        return (
            min(max(512, self.canvas.width()), 2048),
            min(max(512, self.canvas.height()), 2048),
        )

    @staticmethod
    def _label(image: ImageState) -> str:
        kind = "final" if image.final else f"#{image.index if image.index is not None else '?'}"
        return f"{kind} · {image.t * 1000:.0f} ms"

    @staticmethod
    def _caption(image: ImageState) -> str:
        kind = "Final image" if image.final else f"Partial #{image.index}"
        fmt = image.output_format or sniff_image_format(bytes(image.data[:16])) or "?"
        dims = f"{image.width}×{image.height} " if image.width and image.height else ""
        return f"{kind} · {dims}{fmt}, {_human(image.nbytes)} · at {image.t * 1000:.0f} ms"

    def _decoded(self, key: object, result: object) -> None:
        if not isinstance(key, int) or not isinstance(result, DecodedImage):
            return
        if key >= len(self._images):
            return
        self._decoded_images[key] = result
        # Follow the newest image unless the user picked one; a late partial never hides the final.
        # The picture first: its thumbnail is made (and the strip laid out) once it is on screen.
        if not self._pinned and (self._shown is None or self._prefer(key, self._shown)):
            self._show(key)
        entry = self.strip.item(key)
        if entry is not None:
            thumb = result.thumb_image()
            if thumb is not None:
                entry.setIcon(QIcon(QPixmap.fromImage(thumb)))
            entry.setText(self._label(self._images[key]) if not result.error else "undecodable")

    def _prefer(self, new: int, old: int) -> bool:
        if self._images[old].final and not self._images[new].final:
            return False
        return new >= old or self._images[new].final

    def _show(self, position: int) -> None:
        image = self._images[position]
        result = self._decoded_images.get(position)
        if result is None:
            self.caption.setText(self._caption(image) + " · decoding…")
            return
        self._shown = position
        if result.error:
            self.canvas.set_image(None)
            self.caption.setText(self._caption(image) + f" · cannot decode ({result.error})")
        else:
            self.canvas.set_image(result.display_image())
            self.caption.setText(self._caption(image))
        if self.strip.currentRow() != position:
            self._updating = True
            self.strip.setCurrentRow(position)
            self._updating = False
        self.imageShown.emit(position)

    def _strip_selected(self, row: int) -> None:
        if self._updating or row < 0:
            return
        self._pinned = True
        self._show(row)

    def _strip_clicked(self, entry: QListWidgetItem) -> None:
        position = entry.data(Qt.ItemDataRole.UserRole)
        if isinstance(position, int) and position < len(self._images):
            self._pinned = True
            self._show(position)
            self.itemActivated.emit(self._images[position].item)
