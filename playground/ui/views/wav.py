"""Writing raw PCM as a WAV file (stdlib ``wave``) and reading a WAV header's facts."""

from __future__ import annotations

import io
import wave
from pathlib import Path

__all__ = ["pcm_to_wav_bytes", "save_wav", "wav_info"]


def pcm_to_wav_bytes(
    pcm: bytes | bytearray, sample_rate: int = 24000, channels: int = 1, sample_width: int = 2
) -> bytes:
    """A WAV file holding ``pcm`` (24 kHz s16le mono by default, docs/protocol.md §6)."""
    frame = channels * sample_width
    usable = len(pcm) - (len(pcm) % frame) if frame else 0
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(sample_width)
        w.setframerate(sample_rate)
        w.writeframes(bytes(pcm[:usable]))
    return out.getvalue()


def save_wav(
    path: str | Path,
    pcm: bytes | bytearray,
    sample_rate: int = 24000,
    channels: int = 1,
    sample_width: int = 2,
) -> None:
    Path(path).write_bytes(pcm_to_wav_bytes(pcm, sample_rate, channels, sample_width))


def wav_info(data: bytes | bytearray) -> tuple[int, int, int, float] | None:
    """(sample_rate, channels, sample_width, seconds) of a WAV body, or None if it is not one."""
    try:
        with wave.open(io.BytesIO(bytes(data)), "rb") as w:
            rate, channels, width = w.getframerate(), w.getnchannels(), w.getsampwidth()
            frames = w.getnframes()
    except (wave.Error, EOFError, ValueError):
        return None
    return rate, channels, width, frames / rate if rate else 0.0
