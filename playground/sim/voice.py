"""A voice-like synthesiser (formant syllables per letter) hiding its text in the sample LSBs."""

from __future__ import annotations

import math
import random
import struct
import zlib
from array import array
from collections.abc import Iterator
from functools import lru_cache

from playground.sim.context import seed_of

RATE = 24_000  # PCM 24 kHz, 16-bit, mono, little-endian (docs/protocol.md §6)
MAGIC = b"SIMV"
PEAK = 11_000

# Vowel formants (F1, F2) in Hz, roughly an adult voice.
_VOWELS = {
    "a": (800, 1200),
    "e": (500, 1900),
    "i": (300, 2300),
    "o": (500, 900),
    "u": (320, 800),
    "y": (300, 2000),
}
_VOICED = {
    "m": (280, 1000),
    "n": (280, 1400),
    "l": (360, 1300),
    "r": (420, 1300),
    "w": (300, 700),
    "v": (300, 1300),
    "j": (300, 2100),
    "z": (300, 1500),
}
_FRICATIVE = set("sfhxcz")
_PAUSE = {
    " ": 0.055,
    ",": 0.16,
    ";": 0.18,
    ":": 0.18,
    ".": 0.26,
    "!": 0.26,
    "?": 0.26,
    "\n": 0.3,
    "-": 0.06,
}


def payload_bits(text: str) -> list[int]:
    """MAGIC, length, UTF-8 text and CRC-32, MSB first: one bit per sample, in the LSB."""
    raw = text.encode()
    blob = MAGIC + struct.pack(">I", len(raw)) + raw + struct.pack(">I", zlib.crc32(raw))
    return [(byte >> (7 - k)) & 1 for byte in blob for k in range(8)]


@lru_cache(maxsize=512)
def _period(f1: int, f2: int, f0: int) -> tuple[float, ...]:
    """One pitch period of a voiced sound: harmonics of f0 weighted by two formant peaks."""
    length = max(8, round(RATE / f0))
    harmonics = []
    for k in range(1, int(3800 / f0) + 1):
        f = k * f0
        amp = (
            math.exp(-(((f - f1) / 130) ** 2)) + 0.6 * math.exp(-(((f - f2) / 180) ** 2)) + 0.05 / k
        )
        harmonics.append((k, amp))
    total = sum(a for _, a in harmonics) or 1.0
    return tuple(
        sum(a * math.sin(2 * math.pi * k * n / length) for k, a in harmonics) / total
        for n in range(length)
    )


def _envelope(n: int, attack: int) -> list[float]:
    attack = max(1, min(attack, n // 2 or 1))
    return [min(1.0, i / attack, (n - i) / attack) for i in range(n)]


def _voiced(formants: tuple[int, int], f0: int, seconds: float, loud: float) -> list[float]:
    period = _period(formants[0], formants[1], f0)
    n = max(1, int(RATE * seconds))
    wave = (period * (n // len(period) + 1))[:n]
    env = _envelope(n, int(RATE * 0.012))
    return [w * e * loud for w, e in zip(wave, env)]


def _noise(rng: random.Random, seconds: float, loud: float, hiss: bool) -> list[float]:
    n = max(1, int(RATE * seconds))
    env = _envelope(n, int(RATE * 0.006))
    out, prev = [], 0.0
    for e in env:
        x = rng.uniform(-1, 1)
        y = x - prev if hiss else (x + prev) / 2  # a crude high-pass for "s", low-pass otherwise
        prev = x
        out.append(y * e * loud)
    return out


def segments(text: str, speed: float = 1.0) -> Iterator[list[float]]:
    """Sound for each character in turn, as floats in [-1, 1]: vowels, consonants, pauses."""
    rng = random.Random(seed_of("voice", text))
    speed = max(0.25, min(4.0, speed))
    pitch = 140.0
    for ch in text.lower():
        if ch in _PAUSE or ch.isspace():
            if ch in ".!?\n":
                pitch = 140.0  # a new sentence starts high again
            yield [0.0] * int(RATE * _PAUSE.get(ch, 0.055) / speed)
            continue
        pitch = max(95.0, pitch - rng.uniform(0.0, 1.6))  # a falling sentence contour
        f0 = int(pitch + rng.uniform(-6, 6)) // 2 * 2
        if ch in _VOWELS or ch.isdigit():
            formants = _VOWELS.get(ch, _VOWELS["o"])
            yield _voiced(formants, f0, 0.085 / speed, 0.9)
        elif ch in _VOICED:
            yield _voiced(_VOICED[ch], f0, 0.05 / speed, 0.5)
        elif ch in _FRICATIVE:
            yield _noise(rng, 0.055 / speed, 0.3, hiss=True)
        elif ch.isalpha():
            yield _noise(rng, 0.022 / speed, 0.45, hiss=False)  # a stop: a short burst
            yield [0.0] * int(RATE * 0.012 / speed)
        else:
            yield [0.0] * int(RATE * 0.03 / speed)


def pcm_chunks(text: str, speed: float = 1.0, chunk_samples: int = 2400) -> Iterator[bytes]:
    """16-bit LE PCM in chunks of `chunk_samples` (2400 = 0.1 s), the text hidden in the LSBs."""
    bits = payload_bits(text)
    nbits = len(bits)
    pos = 0
    buf = array("h")
    for seg in segments(text, speed):
        samples = array("h", (int(x * PEAK) for x in seg))
        end = min(nbits, pos + len(samples))
        for i in range(pos, end):  # LSB embedding: inaudible, lossless through pcm and wav
            samples[i - pos] = (samples[i - pos] & ~1) | bits[i]
        pos += len(samples)
        buf.extend(samples)
        while len(buf) >= chunk_samples:
            yield _le(buf[:chunk_samples])
            del buf[:chunk_samples]
    while pos < nbits:  # a text too short to carry its payload: pad with near-silence
        pad = array("h", [bits[i] for i in range(pos, min(nbits, pos + chunk_samples))])
        pos += len(pad)
        buf.extend(pad)
    tail = array("h", [0] * int(RATE * 0.15))
    buf.extend(tail)
    while buf:
        yield _le(buf[:chunk_samples])
        del buf[:chunk_samples]


def _le(samples: array[int]) -> bytes:
    if array("h", [1]).tobytes()[0] != 1:  # big-endian host: swap to little-endian
        samples = array("h", samples)
        samples.byteswap()
    return samples.tobytes()


def pcm(text: str, speed: float = 1.0) -> bytes:
    return b"".join(pcm_chunks(text, speed))


def wav_header(data_bytes: int, rate: int = RATE, channels: int = 1) -> bytes:
    """A 44-byte RIFF/WAVE header for 16-bit PCM (0xFFFFFFFF sizes when the length is unknown)."""
    riff = 0xFFFFFFFF if data_bytes >= 0xFFFFFFFF - 36 else 36 + data_bytes
    block = channels * 2
    return (
        b"RIFF"
        + struct.pack("<I", riff)
        + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * block, block, 16)
        + b"data"
        + struct.pack("<I", min(data_bytes, 0xFFFFFFFF))
    )


def wav(pcm_bytes: bytes, rate: int = RATE) -> bytes:
    return wav_header(len(pcm_bytes), rate) + pcm_bytes


def pcm_from_file(data: bytes) -> bytes:
    """The PCM samples of a WAV file (any chunk order), or the bytes as they are."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return data
    pos = 12
    while pos + 8 <= len(data):
        cid, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        if cid == b"data":
            return data[pos + 8 : pos + 8 + size]
        pos += 8 + size + (size & 1)
    return data[44:]


def decode_text(audio: bytes) -> str | None:
    """The text hidden in audio this module made (WAV or raw PCM), or None."""
    raw = pcm_from_file(audio)
    n = len(raw) // 2
    if n < 64:
        return None
    samples = array("h")
    samples.frombytes(raw[: n * 2])
    if array("h", [1]).tobytes()[0] != 1:
        samples.byteswap()

    def read(start: int, count: int) -> bytes:
        out = bytearray()
        for b in range(count):
            byte = 0
            for k in range(8):
                byte = (byte << 1) | (samples[start + b * 8 + k] & 1)
            out.append(byte)
        return bytes(out)

    if read(0, 4) != MAGIC:
        return None
    length = struct.unpack(">I", read(32, 4))[0]
    if 64 + (length + 4) * 8 > n:
        return None
    body = read(64, length)
    crc = struct.unpack(">I", read(64 + length * 8, 4))[0]
    if zlib.crc32(body) != crc:
        return None
    try:
        return body.decode()
    except UnicodeDecodeError:
        return None


def duration_seconds(pcm_len: int) -> float:
    return pcm_len / 2 / RATE
