"""What an attached image is, read from its first bytes: format and pixel size (PNG, JPEG, WebP,
GIF), so the simulated model can say what it sees without decoding a single pixel."""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass

MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif"}


@dataclass(frozen=True, slots=True)
class ImageInfo:
    format: str  # png | jpeg | webp | gif
    width: int
    height: int

    @property
    def media_type(self) -> str:
        return MEDIA_TYPES[self.format]

    def describe(self) -> str:
        return f"a {self.width}×{self.height} {self.format.upper()} image"


def _jpeg(data: bytes) -> tuple[int, int] | None:
    # Walk the markers to the first start-of-frame (SOF0-15 but DHT C4, JPG C8, DAC CC), whose
    # payload is precision, height, width (ITU T.81 B.2.2).
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


def image_info(data: bytes) -> ImageInfo | None:
    """The format and size from the header; None when the bytes are no image of the four."""
    size: tuple[int, int] | None = None
    fmt = ""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        fmt, size = "png", struct.unpack(">II", data[16:24])
    elif data[:3] == b"\xff\xd8\xff":
        fmt, size = "jpeg", _jpeg(data)
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        fmt, size = "webp", _webp(data)
    elif data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        fmt, size = "gif", struct.unpack("<HH", data[6:10])
    if size is None:
        return None
    return ImageInfo(fmt, size[0], size[1])


def from_data_url(url: str) -> bytes | None:
    """The bytes of a ``data:<type>;base64,`` URL; None for another URL or bad base64."""
    if not url.startswith("data:"):
        return None
    head, sep, payload = url.partition(",")
    if not sep or not head.endswith(";base64"):
        return None
    return from_base64(payload)


def from_base64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
