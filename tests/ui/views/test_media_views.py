"""ImagesView, AudioView and MusicView: decoded off the UI thread, saved, played or explained."""

from __future__ import annotations

import base64
import json
import wave
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot
from widgets_fixtures import capture_bytes, decode, png_bytes, sine_pcm, sse

from playground.protocol.state import AudioState, ImageState, StreamState
from playground.ui.kit.image_decode import decode_rgba
from playground.ui.views import audio_player
from playground.ui.views.audio_player import NO_AUDIO_NOTE
from playground.ui.views.audio_view import AudioView
from playground.ui.views.envelope import Envelope
from playground.ui.views.images_view import ImagesView
from playground.ui.views.music_view import MusicView


@pytest.fixture(autouse=True)
def _no_audio(monkeypatch: pytest.MonkeyPatch) -> None:
    # No sound from the tests whatever the machine has; the "no output" path is the tested one.
    monkeypatch.setattr(audio_player, "default_audio_output", lambda: None)


def _image(index: int | None, final: bool, data: bytes, item: int, t: float) -> ImageState:
    return ImageState(index, final, "png", data, None, None, item, t)


def test_partials_shown_as_they_arrive_then_final(qtbot: QtBot) -> None:
    view = ImagesView()
    qtbot.addWidget(view)
    view.resize(600, 600)
    state = StreamState(route="images")
    state.images.append(_image(0, False, png_bytes(1024, 1024), 3, 0.25))
    view.refresh(state)
    assert view.strip.count() == 1  # listed the moment it arrives, before it is decoded
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=5000)
    decoded = view.decoded(0)
    assert decoded is not None and (decoded.width, decoded.height) == (1024, 1024)
    shown = view.canvas.image()
    assert shown is not None and not shown.isNull()
    assert max(shown.width(), shown.height()) <= 2048
    assert "Partial #0" in view.caption.text() and "250 ms" in view.caption.text()
    state.images.append(_image(1, False, png_bytes(1024, 1024), 4, 0.5))
    state.images.append(_image(None, True, png_bytes(640, 480), 5, 0.75))
    view.refresh(state)
    assert view.strip.count() == 3
    qtbot.waitUntil(lambda: view.shown_position == 2, timeout=5000)
    final = view.decoded(2)
    assert final is not None and (final.width, final.height) == (640, 480)
    shown = view.canvas.image()
    assert shown is not None
    # Scaled off the UI thread to fit the canvas (at least 512 px), keeping the aspect ratio.
    assert shown.width() * 480 == shown.height() * 640 and 512 <= shown.width() <= 640
    assert "Final image" in view.caption.text()
    assert "final" in view.strip.item(2).text() and "750 ms" in view.strip.item(2).text()
    assert not view.strip.item(0).icon().isNull()


def test_late_partial_does_not_replace_final(qtbot: QtBot) -> None:
    view = ImagesView()
    qtbot.addWidget(view)
    state = StreamState(route="images")
    state.images.append(_image(None, True, png_bytes(32, 32), 1, 0.1))
    view.refresh(state)
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=5000)
    state.images.append(_image(2, False, png_bytes(16, 16), 2, 0.2))
    view.refresh(state)
    qtbot.waitUntil(lambda: view.decoded(1) is not None, timeout=5000)
    assert view.shown_position == 0


def test_save_writes_original_bytes(qtbot: QtBot, tmp_path: Path) -> None:
    view = ImagesView()
    qtbot.addWidget(view)
    data = png_bytes(8, 8)
    state = StreamState(route="images")
    state.images.append(_image(None, True, data, 1, 0.1))
    view.refresh(state)
    assert view.save_button.isEnabled()
    view.save_image(tmp_path / "out.png")
    assert (tmp_path / "out.png").read_bytes() == data


def test_undecodable_image_is_a_note(qtbot: QtBot) -> None:
    view = ImagesView()
    qtbot.addWidget(view)
    state = StreamState(route="images")
    state.images.append(_image(0, False, b"\x89PNG\r\n\x1a\nbroken", 1, 0.1))
    view.refresh(state)
    qtbot.waitUntil(lambda: view.decoded(0) is not None, timeout=5000)
    assert "cannot decode" in view.caption.text()


def test_images_from_real_capture_and_linking(qtbot: QtBot) -> None:
    decoder = decode(capture_bytes("images/azure-responses-image-generation-partial-png"))
    images = decoder.state.images
    assert images
    view = ImagesView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    view.finish(decoder.state)
    qtbot.waitUntil(lambda: all(view.decoded(i) for i in range(len(images))), timeout=5000)
    assert view.decoded(0).width == images[0].width  # type: ignore[union-attr]
    view.highlight_item(images[0].item)
    assert view.shown_position == 0
    got: list[int] = []
    view.itemActivated.connect(got.append)
    view._strip_clicked(view.strip.item(len(images) - 1))
    assert got == [images[-1].item]


def test_images_from_seed_shaped_stream(qtbot: QtBot) -> None:
    # /v1/images partial-image stream (PROTOCOL.md §5): no public capture, so built from the seed.
    b64 = base64.b64encode(png_bytes(64, 48)).decode()
    common = {"output_format": "png", "size": "1024x1024", "b64_json": b64}
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    partial = {"type": "image_generation.partial_image", "partial_image_index": 0, **common}
    done = {"type": "image_generation.completed", "usage": usage, **common}
    data = sse(
        ("image_generation.partial_image", json.dumps(partial)),
        ("image_generation.completed", json.dumps(done)),
    )
    decoder = decode(data, chunk=1000, route="images")
    view = ImagesView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    assert view.strip.count() == len(decoder.state.images) == 2
    qtbot.waitUntil(lambda: view.shown_position == 1, timeout=5000)
    assert (view.decoded(1).width, view.decoded(1).height) == (64, 48)  # type: ignore[union-attr]


def test_decode_scales_down_smoothly_off_thread() -> None:
    result = decode_rgba(png_bytes(1536, 1024), fit=(512, 512))
    assert (result.width, result.height) == (1536, 1024)
    assert result.display[1:] == (512, 341)
    assert len(result.display[0]) == 512 * 341 * 4
    assert result.thumb is not None and max(result.thumb[1:]) <= 96


def test_decode_keeps_colours_and_opacity_and_fits_like_thumbnail() -> None:
    import io

    from PIL import Image

    from playground.ui.kit.image_decode import fit_size

    for width, height, box in [
        (1536, 1024, (512, 512)),
        (333, 1000, (200, 700)),
        (10, 10, (96, 96)),
    ]:
        img = Image.new("L", (width, height))
        img.thumbnail(box)
        assert fit_size(width, height, box) == img.size
    out = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 60)).save(out, "PNG")
    opaque = decode_rgba(out.getvalue(), fit=(150, 150))
    assert opaque.opaque and opaque.display[1:] == (150, 100)
    assert opaque.display[0][:4] == bytes((200, 30, 60, 255))  # RGBA byte order, alpha 255
    out = io.BytesIO()
    Image.new("RGBA", (300, 200), (10, 20, 30, 0)).save(out, "PNG")
    clear = decode_rgba(out.getvalue(), fit=(150, 150))
    assert not clear.opaque and clear.display[0][3] == 0
    assert clear.display_image().pixelColor(0, 0).alpha() == 0


def test_a_lazy_image_is_decoded_in_the_worker(qtbot: QtBot) -> None:
    png = png_bytes(320, 200)
    state = StreamState(route="images")
    lazy = ImageState(0, False, "png", None, 320, 200, 1, 0.1, b64=base64.b64encode(png).decode())
    state.images.append(lazy)
    view = ImagesView()
    qtbot.addWidget(view)
    view.refresh(state)
    assert not lazy.decoded  # the UI thread listed it without decoding its base64
    qtbot.waitUntil(lambda: view.shown_position == 0, timeout=5000)
    assert lazy.decoded and lazy.data == png
    assert view.decoded(0).width == 320


def _pcm_state(pcm: bytes) -> StreamState:
    state = StreamState(route="speech")
    state.audio = AudioState(format="pcm")
    state.audio.data += pcm
    state.audio.origins.append((0, 1))
    return state


def test_audio_seconds_waveform_and_wav_round_trip(qtbot: QtBot, tmp_path: Path) -> None:
    view = AudioView()
    qtbot.addWidget(view)
    pcm = sine_pcm(1.0)
    state = _pcm_state(pcm[:20000])
    view.refresh(state)
    first = view.waveform.points
    assert first > 0
    state.audio.data += pcm[20000:]  # type: ignore[union-attr]
    view.refresh(state)
    view.finish(state)
    assert view.seconds == pytest.approx(1.0)
    assert "1.00 s" in view.duration_label.text()
    assert view.waveform.points == 100 > first  # 10 ms buckets, grown incrementally
    assert max(view.waveform.envelope.maxs) > 10000 and min(view.waveform.envelope.mins) < -10000
    view.save(tmp_path / "speech.wav")
    with wave.open(str(tmp_path / "speech.wav"), "rb") as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (24000, 1, 2)
        assert w.getnframes() == 24000
        assert w.readframes(24000) == pcm
    assert view.has_content()


def test_no_audio_output_shows_note_not_crash(qtbot: QtBot) -> None:
    view = AudioView()
    qtbot.addWidget(view)
    view.refresh(_pcm_state(sine_pcm(0.1)))
    assert view.no_output
    assert view.note.text() == NO_AUDIO_NOTE
    assert not view.note.isHidden()
    assert view.save_button.isEnabled()
    view.play_from_start()  # still no crash


def test_whole_body_mp3_kept_and_saved(qtbot: QtBot, tmp_path: Path) -> None:
    decoder = decode(capture_bytes("speech/openai-gpt4o-mini-tts-sse"), chunk=200)
    audio = decoder.state.audio
    assert audio is not None and audio.format == "mp3"
    view = AudioView()
    qtbot.addWidget(view)
    view.refresh(decoder.state)
    view.finish(decoder.state)
    assert (
        "mp3" in view.duration_label.text()
        and f"{len(audio.data):,} B" in view.duration_label.text()
    )
    view.save(tmp_path / "speech.mp3")
    assert (tmp_path / "speech.mp3").read_bytes() == bytes(audio.data)
    view.play_from_start()
    assert view.note.text() == NO_AUDIO_NOTE


def test_waveform_click_names_the_item(qtbot: QtBot) -> None:
    view = AudioView()
    qtbot.addWidget(view)
    view.resize(400, 200)
    state = _pcm_state(sine_pcm(0.2))
    state.audio.origins.append((4800, 2))  # type: ignore[union-attr]
    view.refresh(state)
    got: list[int] = []
    view.itemActivated.connect(got.append)
    from PySide6.QtCore import QPoint, Qt

    qtbot.mouseClick(  # type: ignore[no-untyped-call]
        view.waveform, Qt.MouseButton.LeftButton, pos=QPoint(view.waveform.width() - 2, 5)
    )
    assert got == [2]


def test_envelope_is_incremental() -> None:
    env = Envelope(bucket=4)
    env.add(b"\x01\x00\x02\x00\x03")
    assert len(env) == 0
    env.add(b"\x00\xff\xff")
    assert list(env.mins) == [-1] and list(env.maxs) == [3]
    env.add(b"\x05\x00")
    env.flush()
    assert list(env.maxs) == [3, 5]
    assert env.columns(1) == [(-1, 5)]
    assert env.columns(4) == [(-1, 3), (-1, 3), (5, 5), (5, 5)]  # stretched


def test_music_status_progress_and_audio(qtbot: QtBot) -> None:
    view = MusicView()
    qtbot.addWidget(view)
    view.expected_seconds = 2.0
    state = _pcm_state(sine_pcm(0.5))
    state.route = "music"
    view.refresh(state)
    assert "rendering" in view.status_label.text()
    assert view.progress.value() == 25
    assert view.audio.waveform.points > 0
    view.set_job("rendering", 0.6)
    assert view.progress.value() == 60
    state.status = "complete"
    view.finish(state)
    assert "completed" in view.status_label.text() and view.progress.value() == 100
    assert view.has_content()


def test_pending_while_decoding(qtbot: QtBot) -> None:
    view = ImagesView()
    qtbot.addWidget(view)
    state = StreamState(route="images")
    state.images.append(_image(0, False, png_bytes(256, 256), 1, 0.1))
    view.refresh(state)
    assert view.pending
    qtbot.waitUntil(lambda: not view.pending, timeout=5000)
    assert view.decoded(0) is not None


def test_audio_highlight_marks_the_item_span(qtbot: QtBot) -> None:
    view = AudioView()
    qtbot.addWidget(view)
    state = _pcm_state(sine_pcm(0.2))
    state.audio.origins.append((4800, 2))  # type: ignore[union-attr]
    view.refresh(state)
    view.finish(state)
    view.highlight_item(2)
    assert view.waveform.marked == (10.0, 20.0)  # bytes 4800-9600 = buckets 10-20
    view.highlight_item(99)
    assert view.waveform.marked is None
    view.waveform.grab()  # paints with the mark without error


def test_music_shows_the_phase_last_reported_not_the_posted_one(qtbot: QtBot) -> None:
    view = MusicView()
    qtbot.addWidget(view)
    state = StreamState(route="music")
    state.job = {"id": "job_1", "status": "queued", "progress": 0}  # as the POST answered
    state.job_status, state.progress = "rendering", 0.4  # as the job's events say now
    view.refresh(state)
    assert view.status_label.text().startswith("Job: rendering")
    assert view.progress.value() == 40
    view.set_job("rendering", 0.7)  # a poll, newer
    view.refresh(state)
    assert view.progress.value() == 70
