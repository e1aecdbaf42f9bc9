"""POST /v1/audio/speech and /v1/audio/transcriptions: PCM over SSE, and text back from audio."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse

from playground.sim import prose, voice
from playground.sim.context import SimRequest
from playground.sim.faults import MIDSTREAM_MESSAGE, RouteFaults
from playground.sim.framing import CONTENT, TAIL, TERMINATOR, Frame

CHUNK_SECONDS = 0.1  # 2400 samples = 4800 bytes per speech.audio.delta
AUDIO_TOKENS_PER_SECOND = 10


def _error_tail() -> list[Frame]:
    # The seeds give no shape for speech/transcription; follow OpenAI's error data
    # (docs/protocol.md §6).
    err = {
        "type": "error",
        "error": {"type": "server_error", "code": "server_error", "message": MIDSTREAM_MESSAGE},
    }
    return [Frame(TERMINATOR, err), Frame(TERMINATOR, "[DONE]")]


def _unknown(prefix: str) -> Any:
    def make(n: int) -> Frame:
        return Frame(CONTENT, {"type": f"{prefix}.sim_annotation", "note": "unknown event", "n": n})

    return make


# --- speech ---------------------------------------------------------------------------------


def _speed(body: dict[str, Any]) -> float:
    speed = body.get("speed", 1.0)
    return float(speed) if isinstance(speed, int | float) else 1.0


def speech_usage(text: str, pcm_bytes: int) -> dict[str, int]:
    inp = prose.count_tokens(text) or 1
    out = max(1, int(voice.duration_seconds(pcm_bytes) * AUDIO_TOKENS_PER_SECOND))
    return {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}


async def speech_frames(req: SimRequest, text: str) -> AsyncIterator[Frame]:
    # Paced like real time: each 0.1 s of audio is sent 0.1 s after the last (scaled by the pace).
    delay = req.pace.scaled(CHUNK_SECONDS)
    total = 0
    for chunk in voice.pcm_chunks(text, _speed(req.body), int(voice.RATE * CHUNK_SECONDS)):
        total += len(chunk)
        data = {"type": "speech.audio.delta", "audio": base64.b64encode(chunk).decode()}
        yield Frame(CONTENT, data, delay=delay)
    yield Frame(TAIL, {"type": "speech.audio.done", "usage": speech_usage(text, total)})
    yield Frame(TERMINATOR, "[DONE]")


async def _raw_pcm(req: SimRequest, text: str) -> AsyncIterator[bytes]:
    import asyncio

    delay = req.pace.scaled(CHUNK_SECONDS)
    for chunk in voice.pcm_chunks(text, _speed(req.body), int(voice.RATE * CHUNK_SECONDS)):
        if delay:
            await asyncio.sleep(delay)
        yield chunk


async def handle_speech(request: Request) -> Response:
    req = await SimRequest.read(request)
    if (early := req.early()) is not None:
        return early
    body = req.body
    text = str(body.get("input") or "")
    sse = body.get("stream_format") == "sse" or body.get("stream") is True
    if sse and not req.wants_json_instead:
        faults = RouteFaults(_error_tail, _unknown("speech.audio"), trigger_after=3)
        return req.sse(speech_frames(req, text), faults)
    fmt = str(body.get("response_format") or "wav").lower()
    if fmt == "pcm":
        # Only pcm is streamed as it is made (seed "Streaming", Other streams).
        return StreamingResponse(_raw_pcm(req, text), media_type="audio/pcm", headers=req.headers())
    headers = req.headers()
    if fmt != "wav":  # mp3/opus/aac/flac: the simulator has no encoder, so it answers with WAV
        # The format is echoed from the request: keep it to printable ASCII so no client input
        # can break the header line (h11 rightly refuses CR/LF in a header value).
        shown = "".join(c for c in fmt[:40] if c.isascii() and c.isprintable()).strip()
        headers["X-Sim-Note"] = f"audio/wav: the simulator has no encoder for {shown or '?'}"
    return Response(
        voice.wav(voice.pcm(text, _speed(body))), media_type="audio/wav", headers=headers
    )


# --- transcription --------------------------------------------------------------------------


def transcribe(audio: bytes) -> str:
    """Deterministic: the simulator's own speech gives back its text; anything else a pseudo one."""
    text = voice.decode_text(audio)
    if text is not None:
        return text
    return prose.transcript(hashlib.sha256(audio).hexdigest())


def transcription_usage(audio: bytes, text: str) -> dict[str, Any]:
    seconds = voice.duration_seconds(len(voice.pcm_from_file(audio)))
    audio_tokens = max(1, int(seconds * AUDIO_TOKENS_PER_SECOND))
    out = prose.count_tokens(text) or 1
    return {
        "type": "tokens",
        "input_tokens": audio_tokens,
        "input_token_details": {"text_tokens": 0, "audio_tokens": audio_tokens},
        "output_tokens": out,
        "total_tokens": audio_tokens + out,
    }


async def transcription_frames(req: SimRequest, audio: bytes, text: str) -> AsyncIterator[Frame]:
    step = req.pace.token_seconds
    for tok in prose.tokens(text):
        yield Frame(CONTENT, {"type": "transcript.text.delta", "delta": tok}, delay=step)
    usage = transcription_usage(audio, text)
    yield Frame(TAIL, {"type": "transcript.text.done", "text": text, "usage": usage})
    yield Frame(TERMINATOR, "[DONE]")


async def handle_transcription(request: Request) -> Response:
    req = await SimRequest.read(request, multipart=True)
    if (early := req.early()) is not None:
        return early
    upload = req.form.get("file")
    audio = upload[1] if isinstance(upload, tuple) else b""
    text = transcribe(audio)
    if req.stream and not req.wants_json_instead:
        faults = RouteFaults(_error_tail, _unknown("transcript.text"), trigger_after=3)
        return req.sse(transcription_frames(req, audio, text), faults)
    if str(req.body.get("response_format") or "json") == "text":
        return PlainTextResponse(text, headers=req.headers())
    return req.json({"text": text, "usage": transcription_usage(audio, text)})
