"""Images decoded while their event arrives: the same pixels as the usual path, or that path."""

from __future__ import annotations

import base64
import io
import json
import random
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from playground.protocol.stream import StreamDecoder
from playground.ui.kit.image_decode import DecodedImage, decode_rgba
from playground.ui.views import image_prefetch
from playground.ui.views.image_prefetch import ImagePrefetch, early_result
from playground.ui.views.images_view import ImagesView

READ = 16384  # bytes per network read


def _png(seed: int, size: int = 256, mode: str = "RGB", fmt: str = "PNG", **options: Any) -> bytes:
    """A noisy picture: incompressible enough that its base64 is well past 64 KiB."""
    from PIL import Image

    rng = random.Random(seed)
    img = Image.frombytes(mode, (size, size), rng.randbytes(size * size * len(mode)))
    if mode == "P":
        img.putpalette(rng.randbytes(768))
    out = io.BytesIO()
    img.save(out, fmt, **options)
    return out.getvalue()


def _event(image: bytes, *, index: int = 0, slash: bool = False) -> bytes:
    payload = {
        "type": "image_generation.partial_image",
        "b64_json": base64.b64encode(image).decode(),
        "partial_image_index": index,
        "output_format": "png",
    }
    body = json.dumps(payload, separators=(",", ":"))
    if slash:
        body = body.replace("/", "\\/")  # JSON may escape "/"; the parsed string is the same
    return b"event: image_generation.partial_image\ndata: " + body.encode() + b"\n\n"


def _decoder() -> StreamDecoder:
    decoder = StreamDecoder("images")
    decoder.set_content_type("text/event-stream")
    return decoder


def _stream(view: ImagesView, decoder: StreamDecoder, data: bytes, *, tap: bool = True) -> None:
    """As the session does it: each read to the tap first (reader thread), then the decoder."""
    for i in range(0, len(data), READ):
        if tap:
            view.prefetch.feed(data[i : i + READ])
        decoder.feed(data[i : i + READ], i / 1e6)


def _view(qtbot: QtBot) -> ImagesView:
    view = ImagesView()
    qtbot.addWidget(view)
    view.resize(700, 600)
    view.show()
    qtbot.waitExposed(view)
    return view


@pytest.fixture
def pipelined(monkeypatch: pytest.MonkeyPatch) -> list[DecodedImage | None]:
    """What each call of the no-guess path (a whole text decoded in pieces) returned."""
    calls: list[DecodedImage | None] = []
    real = image_prefetch._pipelined

    def spy(text: str | None, fit: tuple[int, int]) -> DecodedImage | None:
        calls.append(real(text, fit))
        return calls[-1]

    monkeypatch.setattr(image_prefetch, "_pipelined", spy)
    return calls


def _same(a: Any, b: Any) -> bool:
    return (a.width, a.height, a.display, a.thumb, a.opaque, a.error) == (
        b.width,
        b.height,
        b.display,
        b.thumb,
        b.opaque,
        b.error,
    )


@pytest.mark.parametrize(
    ("mode", "fmt", "slash"),
    [
        ("RGB", "PNG", False),
        ("RGBA", "PNG", True),
        ("P", "PNG", False),
        ("RGB", "JPEG", False),  # these two take Pillow's own load, not the streaming inflate
        ("P", "GIF", False),
    ],
)
def test_the_early_decode_shows_exactly_the_usual_pixels(
    qtbot: QtBot, pipelined: list[DecodedImage | None], mode: str, fmt: str, slash: bool
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    picture = _png(1, 700 if fmt == "JPEG" else 256, mode, fmt)
    _stream(view, decoder, _event(picture, slash=slash))
    image = decoder.state.images[0]
    view.refresh(decoder.state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    shown = view.decoded(0)
    assert shown is not None and shown.error is None
    # The early decode was taken: no other path ran, and none read `data` (its base64 decode).
    assert not pipelined and not image.decoded
    assert _same(shown, decode_rgba(picture, view._fit()))


def test_a_box_that_changed_since_the_guess_is_fitted_again() -> None:
    prefetch = ImagePrefetch()
    prefetch.fit = (300, 300)
    picture = _png(2, 400)
    decoder = _decoder()
    data = _event(picture)
    prefetch.feed(data)
    decoder.feed(data, 0.0)
    image = decoder.state.images[0]
    guess = prefetch.claim(len(image.b64 or ""))
    assert guess is not None
    result = early_result(guess, image, (200, 150))
    assert result is not None and _same(result, decode_rgba(picture, (200, 150)))


def test_a_different_text_of_the_same_length_takes_the_usual_path(
    qtbot: QtBot, pipelined: list[DecodedImage | None]
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    # Stored, not compressed: two pictures of one size have the same length, so only the
    # comparison of their text can tell them apart.
    other = _png(4, compress_level=0)
    first, second = _event(_png(3, compress_level=0)), _event(other)
    assert len(first) == len(second)
    for i in range(0, len(first), READ):
        view.prefetch.feed(first[i : i + READ])  # what the tap saw ...
        decoder.feed(second[i : i + READ], 0.0)  # ... is not what the protocol layer parsed
    assert len(view.prefetch._done) == 1  # a finished guess of the very same length ...
    view.refresh(decoder.state)
    assert not view.prefetch._done  # ... was claimed
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    assert len(pipelined) == 1  # the guess was refused: the image was decoded from its own text
    assert _same(view.decoded(0), decode_rgba(other, view._fit()))


@pytest.mark.parametrize("damage", ["zeroed", "truncated"])
def test_a_corrupt_image_falls_back_and_says_it_cannot_decode(
    qtbot: QtBot, pipelined: list[DecodedImage | None], damage: str
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    picture = bytearray(_png(5))
    if damage == "zeroed":
        picture[len(picture) // 2 : len(picture) // 2 + 64] = bytes(64)  # inside the pixel data
    else:
        del picture[len(picture) * 2 // 3 :]  # a complete event with a cut-off PNG in it
    _stream(view, decoder, _event(bytes(picture)))
    view.refresh(decoder.state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    shown = view.decoded(0)
    assert shown is not None and shown.error is not None
    assert pipelined == [None] or not pipelined  # no early result ...
    assert decoder.state.images[0].decoded  # ... the usual path gave the verdict
    assert shown.error == decode_rgba(bytes(picture)).error
    assert "cannot decode" in view.caption.text()


def test_nothing_is_shown_before_the_event_completes(
    qtbot: QtBot, pipelined: list[DecodedImage | None]
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    data = _event(_png(6))
    _stream(view, decoder, data[:-1])  # all but the last line end: the event is not complete
    view.refresh(decoder.state)
    qtbot.wait(300)  # time enough for the early decode to finish
    assert view.prefetch._done  # it did finish ...
    assert view.strip.count() == 0 and view.shown_position is None  # ... and nothing shows
    assert view.canvas.image() is None
    view.prefetch.feed(data[-1:])
    decoder.feed(data[-1:], 1.0)
    view.refresh(decoder.state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    assert not pipelined and not decoder.state.images[0].decoded  # the early decode


def test_a_cut_off_image_is_given_up_and_never_shown(qtbot: QtBot) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    data = _event(_png(7))
    _stream(view, decoder, data[: len(data) // 2])  # the connection dropped mid-image
    guess = view.prefetch._open
    assert guess is not None and guess._future is not None
    decoder.finish(1.0)
    view.finish(decoder.state)  # the run ended
    assert guess.dead
    assert isinstance(guess._future.exception(timeout=5), OSError)  # its reader stopped
    assert view.strip.count() == 0 and view.shown_position is None


def test_a_new_run_forgets_the_last_runs_guesses(
    qtbot: QtBot, pipelined: list[DecodedImage | None]
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    data = _event(_png(8))
    view.prefetch.feed(data)
    assert view.prefetch._done
    view.reset()  # the session started another run
    assert not view.prefetch._done
    _stream(view, decoder, data, tap=False)  # a replay: no tap
    view.refresh(decoder.state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    assert len(pipelined) == 1  # no guess to claim
    assert _same(view.decoded(0), decode_rgba(_png(8), view._fit()))


def test_a_whole_large_image_decodes_in_pieces_to_the_same_pixels(
    qtbot: QtBot, pipelined: list[DecodedImage | None]
) -> None:
    view = _view(qtbot)
    decoder = _decoder()
    picture = _png(9, 400)
    _stream(view, decoder, _event(picture), tap=False)  # a replay, or reads nobody tapped
    image = decoder.state.images[0]
    assert len(image.b64 or "") > 1 << 18
    view.refresh(decoder.state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=10000)
    assert len(pipelined) == 1 and pipelined[0] is not None and not image.decoded
    assert _same(view.decoded(0), decode_rgba(picture, view._fit()))


def test_the_images_panel_taps_its_sessions_reads(qloop: Any, sim: Any) -> None:
    from playground.transport.reader import ThreadedReader
    from playground.ui.panels.route_panel import RoutePanel

    panel = RoutePanel("images")
    view = panel.widgets["images"]
    assert isinstance(view, ImagesView)
    assert panel.session.chunk_tap == view.prefetch.feed
    assert RoutePanel("chat").session.chunk_tap is None
    reader = ThreadedReader(None, connect_timeout=1, first_byte_timeout=1, allow_insecure_key=False)  # type: ignore[arg-type]
    seen: list[bytes] = []
    reader.tap = seen.append
    reader.on_chunk(0.5, b"data: x\n\n")
    assert seen == [b"data: x\n\n"] and not reader.empty()


def test_the_images_panel_shows_simulated_images_from_the_early_decode(
    qloop: Any, sim: Any, send_and_wait: Any, pipelined: list[DecodedImage | None]
) -> None:
    from panel_helpers import sim_panel  # the simulator-backed panel the panel tests use

    panel = sim_panel("images", sim, model="sim-image")
    panel.editor.partial_images.setValue(2)
    panel.editor.image_size.setCurrentIndex(panel.editor.image_size.findData("1024x1024"))
    assert send_and_wait(panel) == "complete"
    view = panel.widgets["images"]
    qloop.wait_until(lambda: not view.pending)
    images = panel.session.state.images
    assert len(images) == 3 and all(len(image.b64 or "") > 1 << 16 for image in images)
    # The reader thread's tap fed every image to the early decode, and each was taken from it.
    assert not pipelined and not any(image.decoded for image in images)
    for position, image in enumerate(images):
        assert _same(view.decoded(position), decode_rgba(image.data, view._fit()))
