"""Timeline column texts (summary.py) and header sniffing (media.py)."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image
from protocol_helpers import decode, sse

from playground.protocol.media import guess_audio_format, image_format, image_size, parse_wav_header
from playground.protocol.summary import event_type, summarize


def _rows(body: bytes) -> list[tuple[str, str]]:
    decoder = decode(body)
    return [
        (event_type(i, decoder.payload(i.index)), summarize(i, decoder.payload(i.index)))
        for i in decoder.items
    ]


def test_chat_rows() -> None:
    body = (
        sse(
            ": OPENROUTER PROCESSING",
            json.dumps({"choices": [{"index": 0, "delta": {"content": "Hello"}}]}),
            json.dumps({"choices": [{"index": 0, "delta": {"reasoning": "hmm"}}]}),
            json.dumps(
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {
                                        "index": 0,
                                        "function": {"name": "get_weather", "arguments": '{"ci'},
                                    }
                                ]
                            },
                        }
                    ]
                }
            ),
            json.dumps({"choices": [], "usage": {"prompt_tokens": 14, "completion_tokens": 7}}),
            json.dumps({"error": {"message": "Overloaded"}}),
            "[DONE]",
        )
        + b"data: {"
    )
    assert _rows(body) == [
        ("comment", ": OPENROUTER PROCESSING"),
        ("chunk", 'text "Hello"'),
        ("chunk", 'reasoning "hmm"'),
        ("chunk", 'tool_call[0] get_weather {"ci'),
        ("chunk", "usage 14 in / 7 out"),
        ("error", "error: Overloaded"),
        ("[DONE]", "end of stream"),
        ("unterminated", "cut off at end of stream (7 B)"),
    ]


def _png_b64(w: int, h: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_typed_rows() -> None:
    body = sse(
        "image_generation.partial_image|"
        + json.dumps(
            {
                "type": "image_generation.partial_image",
                "b64_json": _png_b64(64, 32),
                "partial_image_index": 0,
            }
        ),
        json.dumps(
            {"type": "speech.audio.delta", "audio": base64.b64encode(b"\0" * 4800).decode()}
        ),
        'message_delta|{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}',
    )
    rows = _rows(body)
    assert rows[0][0] == "image_generation.partial_image"
    assert rows[0][1].startswith("partial image #1 (64x32 png, ")
    assert rows[1] == ("speech.audio.delta", "audio 4800 B")
    assert rows[2] == ("message_delta", "stop_reason end_turn, usage ? in / 5 out")


def test_summary_never_raises_on_odd_payloads() -> None:
    body = sse(
        "[1,2]",
        '"x"',
        '{"type": 5}',
        '{"choices": [null, {"delta": 1}]}',
        '{"type":"response.completed","response":7}',
    )
    assert len(_rows(body)) == 5


@pytest.mark.parametrize(
    ("fmt", "size"), [("PNG", (31, 17)), ("JPEG", (40, 30)), ("WEBP", (20, 10)), ("GIF", (5, 6))]
)
def test_image_sizes_from_headers(fmt: str, size: tuple[int, int]) -> None:
    buf = io.BytesIO()
    Image.new("RGB", size, (1, 2, 3)).save(buf, fmt)
    data = buf.getvalue()
    assert image_format(data) == {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp", "GIF": "gif"}[fmt]
    assert image_size(data) == size
    assert image_size(data[:40]) in (size, None)  # a truncated header never raises


def test_webp_lossless_and_extended() -> None:
    for kwargs in ({"lossless": True}, {"lossless": False, "exact": True}):
        buf = io.BytesIO()
        Image.new("RGBA", (33, 21), (1, 2, 3, 128)).save(buf, "WEBP", **kwargs)
        assert image_size(buf.getvalue()) == (33, 21)


def test_audio_guesses() -> None:
    assert guess_audio_format(b"ID3\x04\0\0") == "mp3"
    assert guess_audio_format(b"\xff\xfb\x90\x00") == "mp3"
    assert guess_audio_format(b"\xff\xf1\x50\x80") == "aac"
    assert guess_audio_format(b"OggS\0\0") == "opus"
    assert guess_audio_format(b"fLaC\0\0") == "flac"
    assert guess_audio_format(b"RIFF\0\0\0\0WAVE") == "wav"
    assert guess_audio_format(b"\x01\x02\x03\x04") is None
    assert parse_wav_header(b"RIFF\0\0\0\0WAVEfmt ") is None
