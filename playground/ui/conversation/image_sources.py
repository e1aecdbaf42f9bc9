"""Images a user hands the window: read from files, http(s) and ``data:`` URLs, and the data of
a drop or a paste, each told by its bytes (a file's name can lie; its bytes are what the server
reads), with one sentence for anything that is no PNG, JPEG, WebP or GIF."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

# The image classes are imported by the code that uses them (startup time: PySide makes each
# class it is asked for, with its enums, when first imported); so are the conversation model and
# the media formats (their frozen dataclasses), which the first frame's empty strip never needs.
if TYPE_CHECKING:
    from PySide6.QtCore import QMimeData, QUrl
    from PySide6.QtGui import QImage

    from playground.protocol.conversation.model import Image

__all__ = [
    "NOT_AN_IMAGE",
    "carries_images",
    "image_from_url",
    "images_from_mime",
    "read_image_file",
]

_EXT_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}
_EXT_MIME |= {".webp": "image/webp", ".gif": "image/gif"}
NOT_AN_IMAGE = "not a PNG, JPEG, WebP or GIF image"


def read_image_file(path: str | Path) -> Image:
    """The image in the file at ``path``; ValueError (one sentence) for anything else."""
    from playground.protocol.conversation.model import Image
    from playground.protocol.media import image_mime

    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ValueError(f"{p.name}: {exc.strerror or exc}") from None
    mime = image_mime(data)
    if mime is None:
        raise ValueError(f"{p.name} is {NOT_AN_IMAGE}")
    return Image(mime, data)


def image_from_url(text: str) -> Image:
    """An http(s) image URL as a URL part; a ``data:`` URL decoded to its bytes."""
    from playground.protocol.conversation.model import Image, parse_data_url
    from playground.protocol.media import image_mime

    text = text.strip()
    parsed = parse_data_url(text)
    if parsed is not None:
        mime = image_mime(parsed[1])
        if mime is None:
            raise ValueError(f"the data: URL is {NOT_AN_IMAGE}")
        return Image(mime, parsed[1])
    url = urlsplit(text)
    if url.scheme in ("http", "https") and url.netloc:
        mime = _EXT_MIME.get(Path(url.path).suffix.lower(), "image/png")
        return Image(mime, url=text)
    if url.scheme == "file":
        return read_image_file(url.path)
    raise ValueError(f"{text[:60]!r} is no http(s) or data: image URL")


def _png(image: QImage) -> bytes:
    from PySide6.QtCore import QBuffer, QIODevice

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes
    return bytes(buffer.data().data())


def images_from_mime(mime: QMimeData) -> tuple[list[Image], list[str]]:
    """The images a drop or a paste carries (image files, an image, an image URL), and a
    sentence for each thing that is none."""
    from playground.protocol.conversation.model import Image
    from playground.protocol.media import image_mime

    images: list[Image] = []
    problems: list[str] = []
    if mime.hasUrls():
        for url in mime.urls():
            try:
                if url.isLocalFile():
                    images.append(read_image_file(url.toLocalFile()))
                elif _image_url(url.toString()):  # a link to a page stays the prompt's text
                    images.append(image_from_url(url.toString()))
            except ValueError as exc:
                problems.append(str(exc))
        return images, problems
    for fmt in ("image/png", "image/jpeg", "image/webp", "image/gif"):
        if mime.hasFormat(fmt):
            data = bytes(mime.data(fmt).data())
            if image_mime(data) is not None:
                return [Image(image_mime(data) or fmt, data)], []
    if mime.hasImage():
        from PySide6.QtGui import QImage

        value = mime.imageData()
        image = value if isinstance(value, QImage) else QImage(value)
        if not image.isNull():
            return [Image("image/png", _png(image))], []
    text = mime.text().strip() if mime.hasText() else ""
    if text.startswith("data:image/"):
        try:
            return [image_from_url(text)], []
        except ValueError as exc:
            return [], [str(exc)]
    return [], []


def _image_url(text: str) -> bool:
    return text.startswith("data:image/") or Path(urlsplit(text).path).suffix.lower() in _EXT_MIME


def _image_file(url: QUrl) -> bool:
    # By its name, as a drag cannot wait for the bytes: any other file dropped on the panel is
    # the window's (a capture to open); the bytes decide when it is dropped.
    return Path(url.toLocalFile()).suffix.lower() in _EXT_MIME


def carries_images(mime: QMimeData) -> bool:
    """Whether a drop or paste is the strip's (files, an image) rather than the prompt's text."""
    text = mime.text().strip() if mime.hasText() else ""
    urls = mime.urls() if mime.hasUrls() else []
    return (
        any(_image_file(u) if u.isLocalFile() else _image_url(u.toString()) for u in urls)
        or mime.hasImage()
        or text.startswith("data:image/")
    )
