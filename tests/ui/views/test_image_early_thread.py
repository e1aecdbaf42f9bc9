"""The early image decode's thread: its priority over the event's arrival, and the pixels it hands
over (an opaque PNG straight in Qt's own layout, the same pixels as the usual path)."""

from __future__ import annotations

import io
import os
import random
import sys
import threading
from typing import Any

import pytest
from PySide6.QtGui import QImage

from playground.protocol.stream import StreamDecoder
from playground.ui.kit import image_png
from playground.ui.kit.image_decode import decode_rgba
from playground.ui.views import image_prefetch
from playground.ui.views.image_prefetch import ImagePrefetch, early_result

READ = 16384


def _png(seed: int, size: int, mode: str = "RGB") -> bytes:
    from PIL import Image

    rng = random.Random(seed)
    img = Image.frombytes(mode, (size, size), rng.randbytes(size * size * len(mode)))
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def _event(image: bytes) -> bytes:
    import base64
    import json

    body = json.dumps(
        {"type": "image_generation.partial_image", "b64_json": base64.b64encode(image).decode()}
    )
    return b"event: image_generation.partial_image\ndata: " + body.encode() + b"\n\n"


def _decoder() -> StreamDecoder:
    decoder = StreamDecoder("images")
    decoder.set_content_type("text/event-stream")
    return decoder


def _early_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "image-early" and t.is_alive()]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a thread's nice value is Linux's")
def test_a_guess_decodes_at_normal_priority_until_its_event_is_complete(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    release = threading.Event()
    real = image_prefetch._decode

    def held(pipe: Any, fit: tuple[int, int]) -> Any:
        try:
            return real(pipe, fit)
        finally:
            release.wait(10)  # the thread stays alive for the test to read its priority

    monkeypatch.setattr(image_prefetch, "_decode", held)
    base = os.getpriority(os.PRIO_PROCESS, 0)
    before = set(_early_threads())
    prefetch = ImagePrefetch()
    data = _event(_png(1, 300))
    try:
        for i in range(0, len(data) // 2, READ):
            prefetch.feed(data[i : min(i + READ, len(data) // 2)])
        (thread,) = set(_early_threads()) - before  # one thread of its own for the guess
        assert thread.native_id is not None
        # While the bytes arrive the decode keeps pace: the same priority as the UI thread.
        assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == base
        prefetch.feed(data[len(data) // 2 :])  # the read that completes the event
        # Its fold on the UI thread comes next, and goes first.
        assert os.getpriority(os.PRIO_PROCESS, thread.native_id) == min(19, base + 5)
    finally:
        release.set()
    assert prefetch._done and prefetch._done[0].complete


@pytest.mark.parametrize("inflater", ["isal", "pillow"])
@pytest.mark.parametrize(("mode", "layout"), [("RGB", "Format_RGB32"), ("RGBA", "Format_RGBA8888")])
def test_early_pixels_are_the_usual_ones_an_opaque_png_in_qts_own_layout(
    qapp: Any, monkeypatch: pytest.MonkeyPatch, mode: str, layout: str, inflater: str
) -> None:
    inflated: list[int] = []
    if inflater == "pillow":  # isal not installed: Pillow inflates, as it always did
        monkeypatch.setattr(image_png, "_fast_zlib", None)
    else:
        isal_zlib = pytest.importorskip("isal.isal_zlib")

        class Spy:
            def __init__(self) -> None:
                self.real = isal_zlib.decompressobj()

            def decompress(self, data: bytes, max_length: int = 0) -> bytes:
                inflated.append(len(data))
                return bytes(self.real.decompress(data, max_length))

        monkeypatch.setattr(image_png, "_fast_zlib", type("M", (), {"decompressobj": Spy}))
    picture = _png(2, 400, mode)
    prefetch = ImagePrefetch()
    prefetch.fit = (300, 300)
    decoder = _decoder()
    data = _event(picture)
    for i in range(0, len(data), READ):
        prefetch.feed(data[i : i + READ])
        decoder.feed(data[i : i + READ], 0.0)
    image = decoder.state.images[0]
    guess = prefetch.claim(len(image.b64 or ""))
    result = early_result(guess, image, (300, 300))
    assert result is not None and result.error is None
    # An opaque 8-bit RGB PNG comes out as the canvas paints it (a blit); other modes keep the
    # usual RGBA layout. Either way: exactly the usual path's pixels, scaled to the same box.
    assert result.display_image().format() == getattr(QImage.Format, layout)
    usual = decode_rgba(picture, (300, 300))
    assert (result.width, result.height, result.opaque) == (usual.width, usual.height, usual.opaque)
    assert result.display == usual.display and result.display[1:] == (300, 300)
    assert result.thumb == usual.thumb
    assert bool(inflated) == (inflater == "isal")  # ISA-L inflated it, when it is there


def test_image_data_that_inflates_past_the_image_is_cut_at_its_size(
    qapp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import struct
    import zlib

    isal_zlib = pytest.importorskip("isal.isal_zlib")
    given: list[int] = []

    class Spy:
        def __init__(self) -> None:
            self.real = isal_zlib.decompressobj()

        def decompress(self, data: bytes, max_length: int = 0) -> bytes:
            out = bytes(self.real.decompress(data, max_length))
            given.append(len(out))
            return out

    monkeypatch.setattr(image_png, "_fast_zlib", type("M", (), {"decompressobj": Spy}))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    # A 64x64 RGB PNG whose image data inflate to 5 MB, 400 times its rows: a server's bomb
    # (after a private chunk that makes its base64 long enough for an early decode).
    ihdr = struct.pack(">IIBBBBB", 64, 64, 8, 2, 0, 0, 0)
    bomb = zlib.compress(bytes(5_000_000), 9)
    picture = b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", ihdr),
            chunk(b"prVt", random.Random(3).randbytes(60_000)),
            chunk(b"IDAT", bomb),
            chunk(b"IEND", b""),
        ]
    )
    prefetch = ImagePrefetch()
    decoder = _decoder()
    data = _event(picture)
    prefetch.feed(data)
    decoder.feed(data, 0.0)
    image = decoder.state.images[0]
    result = early_result(prefetch.claim(len(image.b64 or "")), image, (300, 300))
    assert given and sum(given) <= 64 * (1 + 64 * 3)  # never more than the image's own rows
    usual = decode_rgba(picture, (300, 300))
    assert result is not None and result.display == usual.display  # what Pillow makes of it


def test_a_decode_starts_once_the_ui_thread_is_back_in_its_event_loop(qtbot: Any) -> None:
    import time

    from playground.ui.kit.image_decode import ImageDecoder

    decoder = ImageDecoder()
    ran: list[float] = []
    results: list[object] = []
    decoder.decoded.connect(lambda key, result: results.append(result))

    def first(fit: tuple[int, int]) -> None:
        ran.append(time.perf_counter())  # the worker's first step (an early result's check)

    decoder.submit(0, b"not an image", first=first)
    busy_until = time.perf_counter() + 0.05
    while time.perf_counter() < busy_until:  # the rest of the UI thread's frame, in Python
        pass
    done = time.perf_counter()
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    # The worker waited for the frame to end before it took the GIL for its own work.
    assert ran and ran[0] >= done
