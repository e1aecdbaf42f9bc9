"""Partial images: a 1024x1024 partial from arrival to pixels on screen, and UI-thread stalls."""

from __future__ import annotations

import base64
import io
import itertools
import json
import random
from collections.abc import Callable
from typing import Any

from playground.bench.timing import percentile

Value = float | str
_TICK_MS = 1  # the probe timer: how late its ticks come is how long the UI thread was blocked


def _picture(seed: int) -> bytes:
    """A 1024x1024 PNG that compresses like a photo (gradients plus grain): about 1-2 MB."""
    from PIL import Image

    rng = random.Random(seed)
    small = Image.new("RGB", (32, 32))
    colours = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(1024)]
    small.putdata(colours)
    base = small.resize((1024, 1024), Image.Resampling.BICUBIC)
    grain = Image.effect_noise((1024, 1024), 24).convert("RGB")
    img = Image.blend(base, grain, 0.25)
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def _event(index: int, png: bytes) -> bytes:
    payload = {
        "type": "image_generation.partial_image",
        "b64_json": base64.b64encode(png).decode(),
        "partial_image_index": index,
        "size": "1024x1024",
        "quality": "high",
        "background": "opaque",
        "output_format": "png",
        "created_at": 1_700_000_000,
    }
    body = json.dumps(payload, separators=(",", ":")).encode()
    return b"event: image_generation.partial_image\ndata: " + body + b"\n\n"


def _app() -> Any:
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _naive_canvas(width: int, height: int) -> tuple[Any, Callable[[bytes], None]]:
    """A widget showing an image the naive way, and ``show(event)`` that does it all at once on
    the UI thread when the event's last read arrives: the data line's JSON parsed, its base64
    decoded, ``QImage.fromData``, a smooth scale to the box, and a paint."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtWidgets import QWidget

    class Canvas(QWidget):
        image: QImage | None = None

        def paintEvent(self, event: Any) -> None:
            if self.image is not None:
                QPainter(self).drawImage(0, 0, self.image)

    canvas = Canvas()
    canvas.resize(width, height)
    canvas.show()

    def show(event: bytes) -> None:
        line = next(x for x in event.split(b"\n") if x.startswith(b"data: "))
        payload = json.loads(line[6:])
        image = QImage.fromData(base64.b64decode(payload["b64_json"]))
        canvas.image = image.scaled(
            width,
            height,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        canvas.repaint()

    return canvas, show


def image_figures(n_partials: int) -> dict[str, Value]:
    """Feed partial-image events (64 KiB network reads) into the images view's early decoder and
    ``StreamDecoder("images")``, then the view, as the images panel does: the reads are decoded
    on a reader thread (``transport.decode_ahead``, as a live run's are) and the view follows
    the state on the UI thread, the decoder held still meanwhile. ``image_partial_ms``:
    median time from the read that completes an event to its pixels painted;
    ``image_ui_block_ms``: per partial, the longest gap in a 1 ms UI-thread timer beyond its
    interval (median over partials; the max is reported too); ``image_partial_vs_naive``:
    that median over a naive pipeline's on the same events, right after each of ours (the
    whole event read, then decoded, scaled and painted on the UI thread), so it travels.
    """
    import threading

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QObject, QTimer, Signal, SignalInstance

    from playground.protocol.stream import StreamDecoder
    from playground.runs.outcome import has_output
    from playground.transport.decode_ahead import DecodeAhead
    from playground.transport.thread_priority import READER_NICE, lower_priority
    from playground.ui.views.images_view import ImagesView

    class Decoded(QObject):
        """Tells the UI thread, from the reader thread, that a read is in the state."""

        read = Signal()

    app = _app()
    view = ImagesView()
    view.resize(1100, 1000)
    view.show()
    app.processEvents()
    decoder = StreamDecoder("images")
    ahead = DecodeAhead(decoder, has_output)
    ahead.on_response(200, "text/event-stream")
    events = [_event(i, _picture(i)) for i in range(max(1, n_partials))]
    decoded = Decoded()

    def follow() -> None:  # the frame's part: the view follows the state, held still
        with ahead.lock:
            view.refresh(decoder.state)

    decoded.read.connect(follow)  # queued: emitted on the reader thread, run on the UI thread

    def read_on_thread(chunk: bytes, t: float, then: SignalInstance | None) -> threading.Thread:
        def run() -> None:  # what ThreadedReader.on_chunk does: the tap, then the decode
            lower_priority(threading.get_native_id(), READER_NICE)  # as a reader thread runs
            view.prefetch.feed(chunk)
            ahead.on_chunk(t, chunk)
            if then is not None:
                then.emit()

        thread = threading.Thread(target=run, name="playground-reader", daemon=True)
        thread.start()
        return thread

    clock = QElapsedTimer()
    clock.start()
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(_TICK_MS)
    timer.timeout.connect(lambda: ticks.append(clock.nsecsElapsed()))
    shown: list[int] = []
    loop = QEventLoop()

    def on_shown(position: int) -> None:
        view.canvas.repaint()  # pixels on screen now, not at the next frame
        shown.append(clock.nsecsElapsed())
        loop.quit()

    view.imageShown.connect(on_shown)
    latencies: list[float] = []
    naive: list[float] = []
    blocks: list[float] = []
    size = view.canvas.size()
    naive_canvas, naive_show = _naive_canvas(max(1, size.width()), max(1, size.height()))
    t = 0.0
    timer.start()
    try:
        for number, event in enumerate(events):
            reads = [event[i : i + 65536] for i in range(0, len(event), 65536)]
            # Each read goes to the view's early decoder first, as the session's reader thread
            # hands it over (StreamSession.chunk_tap), then to the decoder, on that thread.
            for chunk in reads[:-1]:
                t += 0.001
                reading = read_on_thread(chunk, t, None)
                while reading.is_alive():
                    app.processEvents()
                    reading.join(0.0005)
            ticks.clear()
            before = len(shown)
            arrived = clock.nsecsElapsed()
            ticks.append(arrived)
            t += 0.001
            read_on_thread(reads[-1], t, decoded.read)
            guard = QTimer()
            guard.setSingleShot(True)
            guard.timeout.connect(loop.quit)
            guard.start(10_000)
            if len(shown) == before:
                loop.exec()
            guard.stop()
            if len(shown) == before:
                raise RuntimeError(f"partial {number} was never shown")
            done = shown[-1]
            ticks.append(done)
            latencies.append((done - arrived) / 1e6)
            gaps = [(b - a) / 1e6 - _TICK_MS for a, b in itertools.pairwise(ticks)]
            blocks.append(max(0.0, *gaps))
            # Let the strip and caption settle between partials, as the real stream's gaps do.
            _settle(loop, 50)
            # The naive pipeline on the same event: it keeps the reads until the last arrives.
            held = [bytes(chunk) for chunk in reads[:-1]]
            app.processEvents()
            began = clock.nsecsElapsed()
            naive_show(b"".join([*held, reads[-1]]))
            naive.append((clock.nsecsElapsed() - began) / 1e6)
            _settle(loop, 20)
    finally:
        timer.stop()
        view.close()
        naive_canvas.close()
    ours = percentile(latencies, 0.5)
    return {
        "image_partial_ms": ours,
        "image_partial_vs_naive": ours / percentile(naive, 0.5),
        "image_naive_ms": percentile(naive, 0.5),
        "image_ui_block_ms": percentile(blocks, 0.5),
        "image_ui_block_max_ms": max(blocks),
        "image_partials": float(len(latencies)),
        "image_event_bytes": float(len(events[0])),
    }


def _settle(loop: Any, ms: int) -> None:
    """Run Qt's loop for ``ms`` milliseconds (queued repaints, the strip, the caption)."""
    from PySide6.QtCore import QTimer

    settle = QTimer()
    settle.setSingleShot(True)
    settle.timeout.connect(loop.quit)
    settle.start(ms)
    loop.exec()
