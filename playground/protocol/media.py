"""Pure-Python media sniffing: base64, image sizes (PNG/JPEG/WebP/GIF), audio formats, WAV."""

from __future__ import annotations

import base64
import binascii
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

__all__ = [
    "LetterRuns",
    "WavInfo",
    "audio_mime_of",
    "b64_size",
    "b64decode_lenient",
    "b64decode_prefix",
    "base64_letters",
    "guess_audio_format",
    "image_format",
    "image_size",
    "parse_wav_header",
    "remember_base64",
]


def b64decode_lenient(text: str) -> bytes | None:
    """Decode base64 (standard or URL-safe, padding optional); None if it is not base64."""
    if not text:
        return b""
    cleaned = "".join(text.split())
    if "-" in cleaned or "_" in cleaned:
        cleaned = cleaned.replace("-", "+").replace("_", "/")
    # Padding is recomputed: truncated payloads (a recorder cut the string) still give their bytes.
    cleaned = cleaned.rstrip("=")
    if len(cleaned) % 4 == 1:
        cleaned = cleaned[:-1]  # a lone trailing character cannot hold a byte
    cleaned += "=" * (-len(cleaned) % 4)
    try:
        if len(cleaned) <= _B64_CHUNK:
            return base64.b64decode(cleaned, validate=True)
        # A multi-megabyte image in pieces, handing the GIL over between them (sleep(0)): a
        # thread waiting for it would otherwise wait a whole switch interval (5 ms), so a
        # decode in a worker would block the UI thread that long (measured).
        a2b = binascii.a2b_base64
        pieces = []
        for i in range(0, len(cleaned), _B64_CHUNK):
            pieces.append(a2b(cleaned[i : i + _B64_CHUNK], strict_mode=True))
            time.sleep(0)
        return b"".join(pieces)
    except (binascii.Error, ValueError):
        return None


_B64_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_"
_B64_CHUNK = 1 << 18  # characters per a2b_base64 call (a multiple of 4): see b64decode_lenient


def b64_size(text: str) -> int | None:
    """How many bytes ``b64decode_lenient(text)`` gives, without decoding; None exactly when it
    gives None (not base64). A 2.7 MB partial image is checked in about 2 ms instead of the
    6 ms of a decode, so a UI thread can fold it and leave the decode to a worker (measured);
    a text the JSON reader already checked (``remember_base64``) costs nothing."""
    letters = _remembered(text)
    if letters is None and text.isascii():
        letters = _letters(lambda i, j: text[i:j].encode("ascii"), len(text))
    if letters is not None:
        if letters % 4 == 1:
            letters -= 1  # a lone trailing character cannot hold a byte
        return letters * 3 // 4
    # Whitespace, stray characters, non-ASCII: rare, so the decoder itself answers.
    data = b64decode_lenient(text)
    return None if data is None else len(data)


def base64_letters(
    data: bytes, start: int, stop: int, known: tuple[int, int] | None = None
) -> int | None:
    """How many base64 letters ``data[start:stop]`` holds when it is base64 letters (either
    alphabet) then only "=" padding, which is what a server sends; else None. ``data[a:b]`` for
    ``known`` (a, b) is already known to be letters only (``LetterRuns``): not looked at again."""
    skip_from, skip_to = (known[0] - start, known[1] - start) if known else (0, 0)
    return _letters(lambda i, j: data[start + i : start + j], stop - start, skip_from, skip_to)


class LetterRuns:
    """The stretches of a stream known to be base64 letters only, noted read by read as a long
    line arrives (``note``), so that checking a multi-megabyte string when its event is complete
    looks only at the bytes around them: 3 ms of a 2.7 MB partial image's fold on the reader
    thread, spread over the 40-odd reads that brought it (65 us each)."""

    __slots__ = ("_runs",)

    MIN_READ = 1 << 14  # reads shorter than this are not noted (a token stream's are)

    def __init__(self) -> None:
        self._runs: list[tuple[int, int]] = []  # (start, stop) stream offsets, in order

    def note(self, offset: int, chunk: bytes) -> None:
        """``chunk`` is the stream's bytes from ``offset``: a stretch if all are letters."""
        if chunk.translate(None, _B64_ALPHABET):
            return
        stop = offset + len(chunk)
        runs = self._runs
        if runs and runs[-1][1] == offset:
            runs[-1] = (runs[-1][0], stop)
        else:
            runs.append((offset, stop))
            del runs[:-4]  # only the latest matter: the string being received now

    def within(self, start: int, stop: int) -> tuple[int, int] | None:
        """The longest known stretch inside [start, stop), as (start, stop); None if none."""
        best: tuple[int, int] | None = None
        for run_start, run_stop in self._runs:
            low, high = max(start, run_start), min(stop, run_stop)
            if high > low and (best is None or high - low > best[1] - best[0]):
                best = (low, high)
        return best


def _letters(
    piece: Callable[[int, int], bytes], size: int, skip_from: int = 0, skip_to: int = 0
) -> int | None:
    # What is in neither alphabet, a piece at a time, handing the GIL over between pieces: in
    # one go the 2.7 MB check held it for 3 ms on the reader thread, and the UI thread waited
    # that long for it (image_ui_block_ms). [skip_from, skip_to) is known to be letters.
    rests = []
    spans = ((0, skip_from), (skip_to, size)) if skip_to > skip_from else ((0, size),)
    for begin, end in spans:
        for i in range(begin, end, _B64_CHUNK):
            rest = piece(i, min(i + _B64_CHUNK, end)).translate(None, _B64_ALPHABET)
            if rest:
                if rest.strip(b"="):
                    return None  # a stray character: no need to look further
                rests.append(rest)
            if end - begin > _B64_CHUNK:
                time.sleep(0)
    rest = b"".join(rests)
    if rest and piece(size - len(rest), size) != rest:
        return None  # "=" before the end
    return size - len(rest)


# Texts whose letters the JSON reader counted as it parsed them (``remember_base64``), so the
# fold of their event need not count them again (2-4 ms of a 2.7 MB partial image's fold, on
# the reader thread). Matched by identity; each is forgotten once used, and at most two wait.
_checked: list[tuple[str, int]] = []
_checked_lock = threading.Lock()


def remember_base64(text: str, letters: int) -> None:
    """``text`` is known to be ``letters`` base64 letters then only "=" padding."""
    with _checked_lock:
        _checked.append((text, letters))
        del _checked[:-2]


def _remembered(text: str) -> int | None:
    if not _checked:
        return None
    with _checked_lock:
        for number, (known, letters) in enumerate(_checked):
            if known is text:
                del _checked[number]
                return letters
    return None


_B64_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")


def b64decode_prefix(text: str) -> bytes:
    """The bytes of the longest valid base64 prefix (a payload cut or marked "..." mid-way)."""
    raw = text.encode("ascii", "replace")
    end = 0
    for end, byte in enumerate(raw):  # noqa: B007 - `end` is the result
        if byte not in _B64_CHARS:
            break
    else:
        end = len(raw)
    return b64decode_lenient(text[:end]) or b""


def image_format(data: bytes) -> str | None:
    """The container format from the magic bytes: png, jpeg, webp, gif, or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    return None


def image_mime(data: bytes) -> str | None:
    """The MIME type of a PNG, JPEG, WebP or GIF by its first bytes; None for anything else."""
    fmt = image_format(data)
    return f"image/{fmt}" if fmt is not None else None


def image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from the header alone (works on a truncated file); None if unknown."""
    try:
        fmt = image_format(data)
        if fmt == "png":
            if len(data) >= 24 and data[12:16] == b"IHDR":
                w, h = struct.unpack(">II", data[16:24])
                return int(w), int(h)
            return None
        if fmt == "gif":
            if len(data) >= 10:
                w, h = struct.unpack("<HH", data[6:10])
                return int(w), int(h)
            return None
        if fmt == "webp":
            return _webp_size(data)
        if fmt == "jpeg":
            return _jpeg_size(data)
    except (struct.error, IndexError):
        return None
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return int(w) & 0x3FFF, int(h) & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    return None


_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker in _SOF:
            if i + 9 > n:
                return None
            h = int.from_bytes(data[i + 5 : i + 7], "big")
            w = int.from_bytes(data[i + 7 : i + 9], "big")
            return w, h
        if length < 2:
            return None
        i += 2 + length
    return None


@dataclass(frozen=True, slots=True)
class WavInfo:
    """What a RIFF/WAVE header says; ``data_offset``: where PCM frames start (None: not seen)."""

    sample_rate: int
    channels: int
    sample_width: int
    audio_format: int
    data_offset: int | None


def parse_wav_header(data: bytes) -> WavInfo | None:
    """Parse a RIFF/WAVE header from the start of a (maybe partial) file; None if not there yet."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    i = 12
    fmt: tuple[int, int, int, int] | None = None
    while i + 8 <= len(data):
        cid = data[i : i + 4]
        size = int.from_bytes(data[i + 4 : i + 8], "little")
        body = i + 8
        if cid == b"fmt ":
            if body + 16 > len(data):
                return None
            tag, channels, rate = struct.unpack("<HHI", data[body : body + 8])
            bits = int.from_bytes(data[body + 14 : body + 16], "little")
            fmt = (int(tag), int(channels), int(rate), max(1, int(bits) // 8))
        elif cid == b"data":
            if fmt is None:
                return None
            return WavInfo(fmt[2], fmt[1], fmt[3], fmt[0], body)
        i = body + size + (size & 1)
    if fmt is None:
        return None
    return WavInfo(fmt[2], fmt[1], fmt[3], fmt[0], None)


def guess_audio_format(data: bytes) -> str | None:
    """Guess a container from the first bytes: wav, mp3, aac, opus (ogg), flac; None if unknown."""
    if len(data) < 4:
        return None
    if data[:4] == b"RIFF":
        return "wav"
    if data[:3] == b"ID3":
        return "mp3"
    if data[:4] == b"OggS":
        return "opus"
    if data[:4] == b"fLaC":
        return "flac"
    if data[0] == 0xFF and (data[1] & 0xE0) == 0xE0:
        # 11-bit frame sync: ADTS AAC has layer bits 00, MPEG audio (mp3) has them non-zero.
        return "aac" if (data[1] & 0x06) == 0 else "mp3"
    return None


# An upload's Content-Type by its file name (what the transcription panel sends with the file).
_AUDIO_MIME: Final[dict[str, str]] = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".flac": "audio/flac",
    ".ogg": "audio/ogg",
    ".m4a": "audio/mp4",
    ".webm": "audio/webm",
}


def audio_mime_of(name: str) -> str:
    """The MIME type of an audio file by its suffix; ``application/octet-stream`` if unknown."""
    dot = name.rfind(".")
    return _AUDIO_MIME.get(name[dot:].lower() if dot >= 0 else "", "application/octet-stream")
