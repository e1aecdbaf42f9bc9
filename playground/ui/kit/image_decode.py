"""Image decoding off the UI thread with Pillow, handed back to Qt as QImages from raw RGBA."""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from playground.protocol.media import image_format

__all__ = [
    "DecodedImage",
    "ImageCanvas",
    "ImageDecoder",
    "Pixels",
    "decode_failed",
    "decode_rgba",
    "fit_size",
    "load_pixels",
    "present",
    "sniff_image_format",
]

# QImage.fromData holds the GIL even in a worker (an 18 ms stall per 2 MB partial);
# Pillow's decoder releases it. So Pillow decodes and scales in a thread; the UI thread only
# wraps raw RGBA in a QImage (a memcpy).
_POOLS: dict[str, ThreadPoolExecutor] = {}
_POOL_LOCK = threading.Lock()


def worker_pool(
    name: str, initializer: Callable[[], None] | None = None, workers: int = 2
) -> ThreadPoolExecutor:
    """The image threads called ``name``, made on first use (this module's decode pool, and the
    early decoder's own: image_prefetch.py)."""
    with _POOL_LOCK:
        pool = _POOLS.get(name)
        if pool is None:
            pool = _POOLS[name] = ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix=name, initializer=initializer
            )
        return pool


# One magic-byte sniffer for the whole program: the protocol layer's.
sniff_image_format = image_format


@dataclass(slots=True)
class DecodedImage:
    """An image ready for display: ``picture`` scaled to fit its box, in a format the canvas
    paints as it is; the true size; a thumbnail made from the picture when first asked for.

    ``display`` and ``thumb`` give ``(pixels, w, h)`` with 4 bytes a pixel in R, G, B, A order;
    ``opaque`` says every alpha byte is 255 (an image without alpha), which lets Qt paint it
    without blending."""

    width: int  # of the original image
    height: int
    picture: QImage  # null when the image could not be decoded
    error: str | None = None
    opaque: bool = False
    thumb_box: int = 96
    _thumb: QImage | None = None

    @property
    def display(self) -> tuple[bytes, int, int]:
        return _rgba(self.picture, self.opaque)

    @property
    def thumb(self) -> tuple[bytes, int, int] | None:
        small = self.thumb_image()
        return _rgba(small, self.opaque) if small is not None else None

    def display_image(self) -> QImage:
        # Made by a worker, owned by nobody else: a QImage is shared, not copied, between threads.
        return self.picture

    def thumb_image(self) -> QImage | None:
        # The filmstrip's icon, made after the picture is on screen (0.6-1.4 ms that a partial
        # waited for before), from the picture rather than the full image.
        if self._thumb is None and not self.picture.isNull():
            box = (self.thumb_box, self.thumb_box)
            self._thumb = _scaled(
                self.picture, fit_size(self.picture.width(), self.picture.height(), box)
            )
        return self._thumb


def _rgba(image: QImage, opaque: bool) -> tuple[bytes, int, int]:
    """The pixels as R, G, B, A bytes (X = 255 when opaque)."""
    if image.isNull():
        return b"", 0, 0
    want = _format(opaque)
    if image.format() != want:
        image = image.convertToFormat(want)
    return _bytes(image), image.width(), image.height()


def _format(opaque: bool) -> QImage.Format:
    # RGBX8888 is the same bytes as RGBA8888 with alpha 255, and paints without blending.
    return QImage.Format.Format_RGBX8888 if opaque else QImage.Format.Format_RGBA8888


def _scaled(image: QImage, size: tuple[int, int]) -> QImage:
    # Qt's smooth scaling (safe on a QImage in any thread) is 4x faster here than Pillow's
    # BILINEAR and far faster than LANCZOS, at the same look on screen.
    if (image.width(), image.height()) == size:
        return image
    return image.scaled(
        size[0],
        size[1],
        Qt.AspectRatioMode.IgnoreAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


def _bytes(image: QImage) -> bytes:
    # 32-bit formats have no row padding: the pixels are width * 4 bytes a row, contiguous.
    return bytes(image.constBits())


def fit_size(width: int, height: int, box: tuple[int, int]) -> tuple[int, int]:
    """The size ``Image.thumbnail(box)`` gives: shrink only, keep the aspect ratio, >= 1 px."""
    x, y = box
    if width <= x and height <= y:
        return width, height
    aspect = width / height
    if x / y >= aspect:
        n = y * aspect
        x = max(min(math.floor(n), math.ceil(n), key=lambda k: abs(aspect - k / y)), 1)
    else:
        n = x / aspect
        y = max(
            min(math.floor(n), math.ceil(n), key=lambda k: 0 if k == 0 else abs(aspect - x / k)),
            1,
        )
    return x, y


@dataclass(slots=True)
class Pixels:
    """A decoded image at full size (or JPEG's reduced draft size) before it is fitted to a box."""

    width: int  # of the original image
    height: int
    packed: bytes | bytearray  # 4 bytes a pixel, laid out as ``format`` says
    size: tuple[int, int]  # of ``packed``
    opaque: bool
    drafted: bool  # JPEG decoded at a reduced scale for this box (another box needs a re-decode)
    format: QImage.Format = QImage.Format.Format_RGBA8888


def load_pixels(img: Any, fit: tuple[int, int]) -> Pixels:
    """Decode an opened Pillow image (GIL released while it inflates); may raise.

    JPEG is decoded at a reduced scale when that still covers the box (``draft``). An image
    without alpha is packed as RGBX (opaque, painted without blending) straight from RGB."""
    width, height = img.size
    target = fit_size(width, height, fit)
    if img.format == "JPEG" and target != (width, height):
        img.draft("RGB", target)  # decodes at 1/2, 1/4 or 1/8 scale if still >= target
    img.load()
    opaque = img.mode in ("RGB", "L") and "transparency" not in img.info
    want = "RGB" if opaque else "RGBA"
    shown = img if img.mode == want else img.convert(want)
    # RGBX is RGB with alpha 255: the same bytes RGBA would give, with no conversion.
    packed = shown.tobytes("raw", "RGBX" if opaque else "RGBA")
    drafted = shown.size != (width, height)
    return Pixels(width, height, packed, shown.size, opaque, drafted, _format(opaque))


def present(pixels: Pixels, fit: tuple[int, int], thumb: int = 96) -> DecodedImage:
    """Fit decoded pixels to the box (Qt's smooth scaling, 2 ms for 1024 -> 840 px where
    Pillow's LANCZOS fit took several times that); the thumbnail is made later, from that."""
    w, h = pixels.size
    # Points into ``packed``; scaling makes a new image, else copy() makes one that owns its pixels.
    source = QImage(pixels.packed, w, h, w * 4, pixels.format)
    display = _scaled(source, fit_size(pixels.width, pixels.height, fit))
    if display is source:
        display = source.copy()
    return DecodedImage(pixels.width, pixels.height, display, opaque=pixels.opaque, thumb_box=thumb)


def decode_failed(exc: BaseException) -> DecodedImage:
    return DecodedImage(0, 0, QImage(), error=f"{type(exc).__name__}: {exc}")


def decode_rgba(data: bytes, fit: tuple[int, int] = (1024, 1024), thumb: int = 96) -> DecodedImage:
    """Decode with Pillow (GIL released while it works) and fit to ``fit``; never raises.

    The goal (a 1024x1024 partial on screen within 30 ms): the preview is scaled by Qt's smooth
    scaling (2 ms for 1024 -> 840 px where Pillow's LANCZOS fit took several times that), and the
    thumbnail is made from the preview, not from the full image.
    """
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            return present(load_pixels(img, fit), fit, thumb)
    except Exception as exc:  # any bytes from the server: a note, never a crash
        return decode_failed(exc)


_SETTLE_S = 0.05  # the longest a worker waits for the UI thread to finish what it is doing


def _decode_in_worker(
    data: bytes | Callable[[], bytes],
    fit: tuple[int, int],
    first: Callable[[tuple[int, int]], DecodedImage | None] | None = None,
    settle: Callable[[], None] | None = None,
) -> DecodedImage:
    if settle is not None:
        settle()
    if first is not None:
        try:
            early = first(fit)
        except Exception:  # an early decode is only ever a shortcut: the usual path follows
            early = None
        if early is not None:
            return early
    try:
        raw = data() if callable(data) else data
    except Exception as exc:  # a loader bug is a note on the image, never a crash
        return decode_failed(exc)
    return decode_rgba(raw, fit)


class ImageDecoder(QObject):
    """Submits decodes to a thread pool; ``decoded(key, DecodedImage)`` arrives on the UI thread."""

    decoded = Signal(object, object)
    _done = Signal(object, object, int)
    _ping = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._generation = 0  # bumped by cancel_all: results of an older run are dropped
        self._pending: set[Future[DecodedImage]] = set()
        # Emitted from the worker thread; Qt queues it to this object's (the UI) thread.
        self._done.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._ping.connect(self._answer, Qt.ConnectionType.QueuedConnection)

    def _settle(self) -> None:
        """In a worker: wait (a little) until the UI thread is back in its event loop.

        The decode is submitted from the middle of the UI thread's work (an event's fold, the
        frame's refresh), and a worker's first steps, checking an early result and fitting it
        (Qt's scaling), hold the GIL for about 3 ms: begun at once they ran while the UI thread
        finished its frame, and the two made one block (traced on the busy 2-core Xeon: the
        worst gap ran from the event's last read through the fit; now it ends with the fold).
        Once the UI thread has answered a queued call, its frame is done."""
        answered = threading.Event()
        try:
            self._ping.emit(answered)
        except RuntimeError:
            return  # the receiver was deleted (window closed mid-decode)
        answered.wait(_SETTLE_S)

    def _answer(self, answered: threading.Event) -> None:
        # From a zero timer: after the timers already due (a frame's, an animation's), which the
        # worker's GIL would otherwise hold up as it did the fold's end.
        QTimer.singleShot(0, answered.set)

    def submit(
        self,
        key: Any,
        data: bytes | Callable[[], bytes],
        fit: tuple[int, int] = (1024, 1024),
        *,
        first: Callable[[tuple[int, int]], DecodedImage | None] | None = None,
    ) -> None:
        """Decode ``data`` in a worker; a callable is called there first (e.g. a lazy base64
        decode, ``ImageState.data``, so that too stays off the UI thread). ``first``, if given,
        runs in the worker before that: a result it returns is used instead (an early decode
        that checked it has the same bytes, image_prefetch.py)."""
        generation = self._generation
        pool = worker_pool("image-decode")
        future = pool.submit(_decode_in_worker, data, fit, first, self._settle)
        self._pending.add(future)

        def done(f: Future[DecodedImage]) -> None:
            self._pending.discard(f)
            try:
                result = f.result()
            except Exception as exc:  # pragma: no cover - decode_rgba never raises
                result = DecodedImage(0, 0, QImage(), error=str(exc))
            try:
                self._done.emit(key, result, generation)
            except RuntimeError:
                pass  # the receiver was deleted (window closed mid-decode)

        future.add_done_callback(done)

    def cancel_all(self) -> None:
        self._generation += 1
        for future in list(self._pending):
            future.cancel()
        self._pending.clear()

    @property
    def busy(self) -> bool:
        return bool(self._pending)

    def _deliver(self, key: object, result: object, generation: int) -> None:
        if generation == self._generation:
            self.decoded.emit(key, result)


class ImageCanvas(QWidget):
    """Paints one image scaled to fit, smoothly, keeping its aspect ratio."""

    def __init__(self, parent: QWidget | None = None, placeholder: str = "") -> None:
        super().__init__(parent)
        self._image: QImage | None = None
        self.placeholder = placeholder
        self.setMinimumSize(160, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage | None) -> None:
        self._image = image
        self.update()

    def image(self) -> QImage | None:
        return self._image

    def paintEvent(self, event: object) -> None:
        painter = QPainter(self)
        try:
            image = self._image
            if image is None or image.isNull():
                painter.setPen(self.palette().placeholderText().color())
                painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.placeholder)
                return
            size = image.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
            if size.width() > image.width() and image.width() >= 64:
                size = image.size()  # do not blow small images up past their pixels
            x = (self.width() - size.width()) // 2
            y = (self.height() - size.height()) // 2
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(QRect(x, y, size.width(), size.height()), image)
        finally:
            painter.end()
