"""Streams built from the seed pages' own examples (../shared/seeds), every failure row too: the
media routes (images, speech, transcription)."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image
from protocol_helpers import decode, sse

# -- Images ------------------------------------------------------------------------------------


def _png(width: int, height: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (200, 10, 10)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


@pytest.mark.parametrize("prefix", ["image_generation", "image_edit"])
def test_images_partials_completed_done(prefix: str) -> None:
    usage = {"input_tokens": 10, "output_tokens": 20, "total_tokens": 30}
    body = sse(
        f"{prefix}.partial_image|"
        + json.dumps(
            {
                "type": f"{prefix}.partial_image",
                "b64_json": _png(8, 4),
                "partial_image_index": 0,
                "output_format": "png",
                "size": "1024x1024",
            }
        ),
        f"{prefix}.partial_image|"
        + json.dumps(
            {
                "type": f"{prefix}.partial_image",
                "b64_json": _png(16, 8),
                "partial_image_index": 1,
                "output_format": "png",
            }
        ),
        f"{prefix}.completed|"
        + json.dumps(
            {
                "type": f"{prefix}.completed",
                "b64_json": _png(32, 16),
                "output_format": "png",
                "usage": usage,
            }
        ),
        "[DONE]",
    )
    decoder = decode(body)
    state = decoder.state
    assert decoder.route == "images"
    assert [(i.index, i.final, i.width, i.height, i.output_format) for i in state.images] == [
        (0, False, 8, 4, "png"),
        (1, False, 16, 8, "png"),
        (None, True, 32, 16, "png"),
    ]
    assert (state.status, state.finish, state.usage) == ("complete", f"{prefix}.completed", usage)
    assert state.findings == []


def test_images_error_replaces_completed() -> None:
    body = sse(
        "image_generation.partial_image|"
        + json.dumps(
            {
                "type": "image_generation.partial_image",
                "b64_json": _png(2, 2),
                "partial_image_index": 0,
            }
        ),
        'error|{"error":{"message":"Generation failed","code":502}}',
    )
    state = decode(body).state
    assert state.status == "failed"
    assert state.error is not None and state.error.message == "Generation failed"
    assert len(state.images) == 1


# -- Speech and transcription ------------------------------------------------------------------


def test_speech_pcm_deltas_and_done() -> None:
    pcm = bytes(range(256)) * 10
    usage = {"input_tokens": 14, "output_tokens": 101, "total_tokens": 115}  # spec example
    parts = [pcm[:1000], pcm[1000:]]
    body = sse(
        *[
            json.dumps({"type": "speech.audio.delta", "audio": base64.b64encode(p).decode()})
            for p in parts
        ],
        json.dumps({"type": "speech.audio.done", "usage": usage}),
    )
    decoder = decode(body, audio_format="pcm")
    state = decoder.state
    assert decoder.route == "speech"
    assert state.audio is not None and bytes(state.audio.data) == pcm
    assert state.audio.format == "pcm"
    assert state.audio.seconds == pytest.approx(len(pcm) / 48000)
    assert (state.status, state.finish, state.usage) == ("complete", "speech.audio.done", usage)


def test_speech_truncated_without_done() -> None:
    body = sse(
        json.dumps({"type": "speech.audio.delta", "audio": base64.b64encode(b"\0" * 64).decode()})
    )
    assert decode(body).state.status == "truncated"


def test_transcription_deltas_then_done() -> None:
    body = sse(
        json.dumps({"type": "transcript.text.delta", "delta": "Hel"}),
        json.dumps({"type": "transcript.text.delta", "delta": "lo"}),
        json.dumps(
            {
                "type": "transcript.text.done",
                "text": "Hello.",
                "usage": {"type": "tokens", "total_tokens": 3},
            }
        ),
    )
    state = decode(body).state
    assert (state.text, state.status, state.finish) == (
        "Hello.",
        "complete",
        "transcript.text.done",
    )


def test_transcription_without_done_keeps_deltas() -> None:
    body = sse(json.dumps({"type": "transcript.text.delta", "delta": "Hel"}))
    state = decode(body).state
    assert (state.text, state.status) == ("Hel", "truncated")


def test_images_error_event_is_the_final_event() -> None:
    body = sse('error|{"type":"error","error":{"message":"nope"}}', "[DONE]")
    state = decode(body, route="images").state
    assert (state.status, state.finish, state.error and state.error.message) == (
        "failed",
        "error",
        "nope",
    )
