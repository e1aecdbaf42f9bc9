"""A PNG's pixels from its image data as it arrives: inflated by ISA-L, unfiltered by Pillow."""

from __future__ import annotations

import struct
from typing import Any, Final, Protocol

from PySide6.QtGui import QImage

from .image_decode import Pixels

__all__ = ["Source", "inflate_png"]

_fast_zlib: Any
try:  # ISA-L's inflate: 5-6x zlib's speed on a partial's image data (measured, see below)
    from isal import isal_zlib as _fast_zlib
except ImportError:  # pragma: no cover - without it Pillow inflates as it always did
    _fast_zlib = None

# Measured on a 1024x1024 partial (2 MB of IDAT, 3 MB of scanlines), on a busy machine: Pillow's
# PNG decode took 47 ms, 40 of them inflating (zlib's alone: 41); ISA-L inflated it in 7, and
# Pillow read the scanlines as stored blocks in 7. So ISA-L inflates and Pillow's own decoder
# then reads the scanlines as stored deflate blocks (a copy where it inflated), so its unfilter
# and unpack, and so its pixels, stay exactly what they were.
_ZLIB_HEAD: Final = b"\x78\x01"  # a zlib stream's header: deflate, 32 KiB window, no dictionary
_STORED: Final = struct.Struct("<BHH")  # a stored block's header: not final, LEN, NLEN
_STORED_MAX: Final = 0xFFFF


class Source(Protocol):
    """A file whose bytes are still arriving (image_prefetch's pipe)."""

    def wait(self, pos: int, need: int) -> tuple[bytes, bool]: ...

    def seek(self, offset: int, whence: int = 0) -> int: ...


def inflate_png(img: Any, pipe: Source) -> Pixels | None:
    """What ``ImageFile.load`` does for a PNG, the same decoder on the same bytes, except that
    each call takes every IDAT byte that has arrived rather than one IDAT chunk (64 KiB or less);
    an opaque 8-bit RGB image straight into the pixels Qt shows (then returned), else into
    ``img`` (then None: ``load_pixels`` goes on from there).

    Each call hands the GIL over twice, and with the UI thread busy folding events a
    worker waits up to a switch interval (5 ms) for it: 100 calls made a 14 ms inflate 30-50 ms.
    """
    from PIL import Image

    name, extents, offset, args = img.tile[0]
    idat = _Idat(pipe, offset - 8)
    if args == "RGB" and img.mode == "RGB" and "transparency" not in img.info:
        # Qt's RGB32 is B, G, R, 255 in memory: the RGBX image that Pillow's "BGR" unpacker
        # makes of PNG's R, G, B rows. Decoded into a buffer Qt wraps as it is, the pixels
        # skip Pillow's own image and its tobytes copy (1 ms of the critical path, 2.7 MB).
        width, height = img.size
        packed = bytearray(width * height * 4)
        target = Image.frombuffer("RGBX", img.size, packed, "raw", "RGBX", 0, 1)
        decoder = Image._getdecoder("RGBX", name, "BGR", img.decoderconfig)
        _inflate(decoder, target.im, extents, idat, _scanlines(args, img.size))
        img.tile = []
        return Pixels(
            width, height, packed, (width, height), True, False, QImage.Format.Format_RGB32
        )
    img.load_prepare()
    decoder = Image._getdecoder(img.mode, name, args, img.decoderconfig)
    _inflate(decoder, img.im, extents, idat, _scanlines(args, img.size))
    img.tile = []
    pipe.seek(idat.crc_pos)  # where ImageFile.load leaves the file: the chunks after IDAT
    img.load_end()
    return None


def _scanlines(rawmode: object, size: tuple[int, int]) -> int | None:
    """How many bytes a non-interlaced PNG's image data inflates to (a filter byte and the
    pixels, each row), for the raw modes of whole bytes per pixel; else None."""
    per_pixel = _BYTES_PER_PIXEL.get(rawmode) if isinstance(rawmode, str) else None
    if per_pixel is None:
        return None
    width, height = size
    return height * (1 + width * per_pixel)


_BYTES_PER_PIXEL: Final = {"L": 1, "P": 1, "LA": 2, "RGB": 3, "RGBA": 4, "RGB;16B": 6}


def _inflate(decoder: Any, im: Any, extents: Any, idat: _Idat, scanlines: int | None) -> None:
    """Run ``decoder`` (Pillow's, for PNG) over the image data as it arrives; ISA-L inflates it
    first when it is there and the size of what it inflates to is known: never more than that
    (a small stream that inflates to gigabytes is cut at the image's own size)."""
    inflater = _fast_zlib.decompressobj() if _fast_zlib is not None and scanlines else None
    left = scanlines or 0
    head = True
    try:
        decoder.setimage(im, extents)
        data = b""
        while True:
            more = idat.read()
            if not more:
                raise OSError("image file is truncated")  # as ImageFile.load says it
            if inflater is not None:
                # A corrupt stream raises here: the usual path then says what is wrong.
                raw = inflater.decompress(more, left) if left else b""
                left -= len(raw)
                more = _stored(raw, head)
                head = False
            data = data + more if data else more
            if not data:
                continue  # the inflater wants more input before it gives a byte
            n, err = decoder.decode(data)
            if n < 0:
                if err < 0:
                    raise OSError(f"decoder error {err}")
                break
            data = data[n:]
    finally:
        decoder.cleanup()


class _Idat:
    """The payload of a PNG's IDAT chunks from ``pos`` (the first one's length field) on."""

    def __init__(self, pipe: Source, pos: int) -> None:
        self.pipe = pipe
        self.pos = pos
        self.left = 0  # payload bytes left in the current chunk
        self.skip = 0  # CRC bytes left to skip
        self.crc_pos = pos  # where the last payload ended
        self.ended = False

    def read(self) -> bytes:
        """All the payload that has arrived (waits for some); b"" after the last IDAT."""
        out: list[memoryview] = []
        while not out and not self.ended:
            at_header = not (self.left or self.skip)
            data, eof = self.pipe.wait(self.pos, 8 if at_header else 1)
            view = memoryview(data)  # the payload is copied once, by the join
            i, n = 0, len(data)
            while i < n:
                if self.skip:
                    k = min(self.skip, n - i)
                    self.skip -= k
                elif self.left:
                    k = min(self.left, n - i)
                    out.append(view[i : i + k])
                    self.left -= k
                    if not self.left:
                        self.skip = 4
                        self.crc_pos = self.pos + i + k
                else:
                    if n - i < 8:
                        break
                    length, kind = struct.unpack_from(">I4s", data, i)
                    if kind != b"IDAT":
                        self.ended = True
                        break
                    k = 8
                    self.left = length
                    if not length:
                        self.skip = 4
                        self.crc_pos = self.pos + i + k
                i += k
            self.pos += i
            if eof and not out:
                self.ended = True  # the input ended inside the image data
        return b"".join(out)


def _stored(raw: bytes, head: bool) -> bytes:
    """``raw`` as stored (uncompressed) deflate blocks, after the zlib header if ``head``: what
    Pillow's decoder reads at the speed of a copy. Never the final block nor the checksum: the
    decoder stops at the last row."""
    view = memoryview(raw)
    parts: list[bytes | memoryview] = [_ZLIB_HEAD] if head else []
    for i in range(0, len(raw), _STORED_MAX):
        block = view[i : i + _STORED_MAX]
        parts.append(_STORED.pack(0, len(block), len(block) ^ 0xFFFF))
        parts.append(block)
    return b"".join(parts)
