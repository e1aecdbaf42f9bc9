"""Speech sounds like speech and comes back as text; pictures sharpen; songs stream as made."""

from __future__ import annotations

import base64
import io
import itertools
import math
import time
import wave
from array import array

import httpx
import pytest
from PIL import Image, ImageChops, ImageStat

from playground.sim import picture, voice

from .conftest import INSTANT
from .helpers import payloads, stream


def _samples(pcm: bytes) -> array[int]:
    out = array("h")
    out.frombytes(pcm)
    return out


def _zero_crossings(samples: array[int], start: int, n: int) -> int:
    window = samples[start : start + n]
    return sum(1 for a, b in itertools.pairwise(window) if (a < 0) != (b < 0))


def test_speech_is_voice_like_not_silence_not_one_tone() -> None:
    pcm = voice.pcm("Hello world. Streaming audio is fun!")
    s = _samples(pcm)
    assert voice.duration_seconds(len(pcm)) > 1.5
    rms = math.sqrt(sum(x * x for x in s) / len(s))
    assert rms > 500  # audible
    # Loudness changes over time (syllables and pauses) ...
    windows = [s[i : i + 1200] for i in range(0, len(s) - 1200, 1200)]
    levels = [max(abs(x) for x in w) for w in windows]
    assert sum(1 for v in levels if v < 50) >= 2 and sum(1 for v in levels if v > 3000) >= 5
    # ... and so does the spectrum: different sounds cross zero at different rates.
    rates = {
        _zero_crossings(s, i, 1200) // 10
        for i in range(0, len(s) - 1200, 1200)
        if max(abs(x) for x in s[i : i + 1200]) > 3000
    }
    assert len(rates) >= 4


def test_speech_follows_the_text() -> None:
    short, long = voice.pcm("Hi."), voice.pcm("Hi. " + "This sentence is much longer. " * 3)
    assert len(long) > 3 * len(short)
    assert voice.pcm("Hello") != voice.pcm("Jello")
    assert voice.pcm("Hello") == voice.pcm("Hello")  # deterministic


@pytest.mark.parametrize(
    "text", ["", "a", "Unicode ✓ — ünïcödé", "x" * 1000], ids=["empty", "one", "unicode", "long"]
)
def test_hidden_text_round_trips_in_pcm_and_wav(text: str) -> None:
    pcm = voice.pcm(text)
    assert voice.decode_text(pcm) == text
    assert voice.decode_text(voice.wav(pcm)) == text


def test_decode_rejects_other_audio() -> None:
    assert voice.decode_text(b"") is None
    assert voice.decode_text(bytes(range(256)) * 40) is None
    pcm = bytearray(voice.pcm("tamper me"))
    pcm[200] ^= 1  # a flipped LSB inside the payload fails the CRC
    assert voice.decode_text(bytes(pcm)) is None


def test_speech_formats(base_url: str) -> None:
    body = {"model": "sim-tts", "input": "Format test.", "voice": "alloy"}
    wav = httpx.post(base_url + "/audio/speech", json=body | {"response_format": "wav"})
    assert wav.headers["content-type"] == "audio/wav"
    with wave.open(io.BytesIO(wav.content)) as w:
        assert (w.getframerate(), w.getsampwidth(), w.getnchannels()) == (24000, 2, 1)
    pcm = httpx.post(
        base_url + "/audio/speech", json=body | {"response_format": "pcm"}, headers=INSTANT
    )
    assert pcm.headers["content-type"] == "audio/pcm"
    assert voice.decode_text(pcm.content) == "Format test."
    mp3 = httpx.post(base_url + "/audio/speech", json=body | {"response_format": "mp3"})
    assert mp3.headers["content-type"] == "audio/wav" and "x-sim-note" in mp3.headers


def test_speech_sse_is_paced_like_real_time(base_url: str) -> None:
    body = {"input": "One two.", "stream_format": "sse"}
    _, chunks = stream(base_url, "/audio/speech", body, **{"X-Sim-Pace": "realtime"})
    datas = payloads(b"".join(c for _, c in chunks))
    audio = b"".join(
        base64.b64decode(d["audio"])
        for d in datas
        if isinstance(d, dict) and d.get("type") == "speech.audio.delta"
    )
    seconds = voice.duration_seconds(len(audio))
    assert chunks[-1][0] >= seconds * 0.8
    assert datas[-2]["type"] == "speech.audio.done" and datas[-1] == "[DONE]"


def test_transcription_of_other_audio_is_deterministic(base_url: str) -> None:
    def text(data: bytes) -> str:
        r = httpx.post(
            base_url + "/audio/transcriptions",
            files={"file": ("x.mp3", data)},
            data={"model": "sim-transcribe"},
            headers=INSTANT,
        )
        return str(r.json()["text"])

    a, b = text(b"not audio at all" * 100), text(b"something else" * 100)
    assert a == text(b"not audio at all" * 100) and a != b and len(a.split()) > 10
    r = httpx.post(
        base_url + "/audio/transcriptions",
        files={"file": ("x.mp3", b"zz")},
        data={"response_format": "text"},
    )
    assert r.headers["content-type"].startswith("text/plain") and r.text


def _sharpness(img: Image.Image) -> float:
    gray = img.convert("L")
    shifted = ImageChops.offset(gray, 1, 0)
    return ImageStat.Stat(ImageChops.difference(gray, shifted)).mean[0]


def test_partial_images_get_sharper(base_url: str) -> None:
    body = {"prompt": "mountains at dusk", "partial_images": 3, "size": "512x384", "stream": True}
    _, chunks = stream(base_url, "/images/generations", body)
    datas = [d for d in payloads(b"".join(c for _, c in chunks)) if isinstance(d, dict)]
    imgs = [Image.open(io.BytesIO(base64.b64decode(d["b64_json"]))) for d in datas]
    assert len(imgs) == 4 and all(i.size == (512, 384) for i in imgs)
    final = imgs[-1].convert("RGB")
    errors = [
        ImageStat.Stat(ImageChops.difference(i.convert("RGB"), final)).mean[0] for i in imgs[:-1]
    ]
    assert errors == sorted(errors, reverse=True) and errors[-1] > 0
    assert _sharpness(imgs[0]) < _sharpness(imgs[2]) < _sharpness(final) * 1.5
    # A picture, not a flat fill: many colours.
    assert len(final.resize((64, 48)).getcolors(64 * 48) or []) > 200


def test_picture_is_deterministic_and_depends_on_prompt() -> None:
    a = picture.landscape("a", (64, 64)).tobytes()
    assert a == picture.landscape("a", (64, 64)).tobytes()
    assert a != picture.landscape("b", (64, 64)).tobytes()
    assert picture.parse_size("auto") == (1024, 1024)
    assert picture.parse_size("99999x2") == (4096, 16)


def test_images_not_streamed(base_url: str) -> None:
    r = httpx.post(
        base_url + "/images", json={"prompt": "sea", "size": "32x32", "output_format": "jpeg"}
    )
    body = r.json()
    assert body["output_format"] == "jpeg" and body["usage"]["total_tokens"] > 0
    img = Image.open(io.BytesIO(base64.b64decode(body["data"][0]["b64_json"])))
    assert img.format == "JPEG" and img.size == (32, 32)


def test_music_job_lifecycle_and_stream(base_url: str) -> None:
    headers = {"X-Sim-Pace": "fast"}  # renders 8x faster than "realtime"
    job = httpx.post(
        base_url + "/music", json={"prompt": "sunny walk", "duration_seconds": 6}, headers=headers
    ).json()
    assert job["status"] in ("queued", "rendering") and job["audio_url"] is None
    assert job["stream_url"].endswith(f"/v1/music/{job['id']}/stream")
    start = time.monotonic()
    chunks = []
    with httpx.stream("GET", job["stream_url"]) as r:
        assert r.headers["content-type"] == "audio/wav"
        for chunk in r.iter_raw():
            chunks.append((time.monotonic() - start, chunk))
            if len(chunks) == 2:
                mid = httpx.get(f"{base_url}/music/{job['id']}").json()
                assert mid["status"] in ("rendering", "completed")
    data = b"".join(c for _, c in chunks)
    assert data[:4] == b"RIFF"
    with wave.open(io.BytesIO(data)) as w:
        assert w.getframerate() == 24000
        assert w.getnframes() == 6 * 24000
    assert chunks[-1][0] - chunks[0][0] > 0.1  # streamed while rendering, not at once
    done = httpx.get(f"{base_url}/music/{job['id']}").json()
    assert done["status"] == "completed" and done["progress"] == 1.0
    whole = httpx.get(done["audio_url"]).content
    assert whole == data
    pcm = _samples(data[44:])
    assert max(abs(x) for x in pcm) > 3000


def test_music_stream_true_reports_progress(base_url: str) -> None:
    body = {"prompt": "rain", "duration_seconds": 2, "stream": True}
    _, chunks = stream(base_url, "/music", body, **{"X-Sim-Pace": "fast"})
    datas = payloads(b"".join(c for _, c in chunks))
    types = [d["type"] for d in datas if isinstance(d, dict)]
    assert types[0] == "music.job.created" and types[-1] == "music.job.completed"
    assert datas[-1] == "[DONE]"


def test_music_unknown_job_and_not_ready(base_url: str) -> None:
    assert httpx.get(base_url + "/music/music_nope").status_code == 404
    job = httpx.post(base_url + "/music", json={"prompt": "x", "duration_seconds": 60}).json()
    assert httpx.get(f"{base_url}/music/{job['id']}/audio").status_code == 409
