"""`playground inspect` says the same for every chunking: `--chunk-size` 1 to 7, and the whole
body in one read, give identical text, `--json` and `--events` on every bundled and shared
capture, on a raw WAV body and on whole JSON bodies (the decoder decides a body's kind only once
enough bytes came, and cuts raw audio into items by offset, not by read)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest

from playground.cli.inspect import _event_line, _human, decode_file, state_json

ROOT = Path(__file__).resolve().parents[2]
CAPTURES = ROOT.parent / "shared" / "captures"  # as tests/conftest.py finds them
if not CAPTURES.is_dir():
    CAPTURES = Path(os.environ.get("PLAYGROUND_CAPTURES", "../shared/captures")).resolve()
WAV = ROOT / "resources" / "samples" / "hello.wav"
CHAT_ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi ☃"}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}
BODIES: dict[str, tuple[bytes, str]] = {
    "raw-wav": (WAV.read_bytes(), "auto"),
    "raw-wav-on-speech": (WAV.read_bytes(), "speech"),
    "wav-after-blank-lines": (b"\r\n\n" + WAV.read_bytes()[:9000], "auto"),
    "json-answer": (json.dumps(CHAT_ANSWER, ensure_ascii=False).encode(), "auto"),
    "json-after-bom": (b"\xef\xbb\xbf\n" + json.dumps(CHAT_ANSWER).encode(), "chat"),
    "json-error": (b'  {"error": {"message": "no", "type": "invalid_request_error"}}', "auto"),
    "sse-after-bom": (b'\xef\xbb\xbfdata: {"choices": []}\n\ndata: [DONE]\n\n', "auto"),
}


def _files() -> list[Path]:
    bundled = sorted((ROOT / "resources" / "captures").glob("*.capture.jsonl"))
    shared = sorted(p for p in CAPTURES.rglob("*") if p.suffix in (".sse", ".jsonl", ".json"))
    return bundled + [p for p in shared if p.name != "index.json"]


def _outputs(data: bytes, route: str, chunk_size: int) -> tuple[str, bytes, list[bytes]]:
    decoder = decode_file(data, route, chunk_size)
    return (
        _human(decoder),
        orjson.dumps(state_json(decoder), option=orjson.OPT_NON_STR_KEYS),
        [orjson.dumps(_event_line(item, decoder.bodies)) for item in decoder.items],
    )


def _assert_same_for_every_chunking(data: bytes, route: str) -> None:
    whole = _outputs(data, route, max(1, len(data)))
    for size in range(1, 8):
        text, state, events = _outputs(data, route, size)
        assert text == whole[0], f"--chunk-size {size}: the summary differs"
        assert state == whole[1], f"--chunk-size {size}: --json differs"
        assert events == whole[2], f"--chunk-size {size}: --events differs"


def test_the_shared_captures_are_among_them(captures_dir: Path) -> None:
    assert captures_dir == CAPTURES
    assert len([p for p in _files() if CAPTURES in p.parents]) >= 40


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_every_capture_reads_the_same_for_every_chunk_size(path: Path) -> None:
    _assert_same_for_every_chunking(path.read_bytes(), "auto")


@pytest.mark.parametrize("name", sorted(BODIES))
def test_wav_and_json_bodies_read_the_same_for_every_chunk_size(name: str) -> None:
    data, route = BODIES[name]
    _assert_same_for_every_chunking(data, route)


def test_a_raw_wav_read_one_byte_at_a_time_is_audio_not_sse() -> None:
    decoder = decode_file(WAV.read_bytes(), "auto", 1)
    state = decoder.state
    assert state.status == "complete"
    assert state.audio is not None and state.audio.format == "pcm"
    assert state.audio.container == "wav"
    assert not state.findings
