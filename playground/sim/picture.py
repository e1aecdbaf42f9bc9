"""A procedural landscape (sky, sun, mountains, water) drawn from a prompt's hash, as PNG bytes."""

from __future__ import annotations

import colorsys
import io
import itertools
import random

from PIL import Image, ImageDraw, ImageFilter

from playground.sim.context import seed_of

MIN_SIDE, MAX_SIDE = 16, 4096


def _clamp(side: int) -> int:
    return max(MIN_SIDE, min(MAX_SIDE, side))


def parse_size(value: object) -> tuple[int, int]:
    if isinstance(value, str) and "x" in value:
        w, _, h = value.lower().partition("x")
        if w.strip().isdigit() and h.strip().isdigit():
            return _clamp(int(w)), _clamp(int(h))
    return 1024, 1024


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return int(r * 255), int(g * 255), int(b * 255)


def _gradient(
    size: tuple[int, int], top: tuple[int, int, int], bottom: tuple[int, int, int]
) -> Image.Image:
    h = 256
    strip = Image.new("RGB", (1, h))
    for y in range(h):
        t = y / (h - 1)
        strip.putpixel((0, y), tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
    return strip.resize(size, Image.Resampling.BILINEAR)


def _ridge(rng: random.Random, width: int, base: float, rough: float, n: int = 65) -> list[float]:
    """A mountain ridge by midpoint displacement."""
    pts = [base, base]
    spread = rough
    while len(pts) < n:
        nxt = []
        for a, b in itertools.pairwise(pts):
            nxt += [a, (a + b) / 2 + rng.uniform(-spread, spread)]
        nxt.append(pts[-1])
        pts = nxt
        spread *= 0.55
    return pts


def landscape(prompt: str, size: tuple[int, int]) -> Image.Image:
    """The final picture: deterministic for a prompt and size."""
    rng = random.Random(seed_of("picture", prompt))
    w, h = size
    hue = rng.random()
    sky = _gradient(size, _hsv(hue + 0.6, 0.55, 0.45), _hsv(hue + 0.05, 0.6, 1.0))
    draw = ImageDraw.Draw(sky, "RGBA")
    horizon = h * rng.uniform(0.55, 0.68)
    sun_x, sun_y, r = w * rng.uniform(0.2, 0.8), horizon * rng.uniform(0.35, 0.75), min(w, h) * 0.09
    for k in range(6, 0, -1):  # a soft glow around the sun
        rr = r * (1 + k * 0.35)
        draw.ellipse(
            (sun_x - rr, sun_y - rr, sun_x + rr, sun_y + rr), fill=(*_hsv(hue + 0.1, 0.4, 1), 18)
        )
    draw.ellipse((sun_x - r, sun_y - r, sun_x + r, sun_y + r), fill=_hsv(hue + 0.12, 0.25, 1.0))
    for layer in range(3):
        base = horizon - h * (0.22 - layer * 0.08)
        ridge = _ridge(rng, w, base, h * (0.18 - layer * 0.04))
        step = w / (len(ridge) - 1)
        poly = [(i * step, y) for i, y in enumerate(ridge)] + [(w, horizon), (0, horizon)]
        shade = 0.25 + layer * 0.12
        draw.polygon(poly, fill=_hsv(hue + 0.7 - layer * 0.05, 0.45, shade))
    water = _gradient(
        (w, max(1, h - int(horizon))), _hsv(hue + 0.55, 0.5, 0.5), _hsv(hue + 0.6, 0.6, 0.2)
    )
    sky.paste(water, (0, int(horizon)))
    for k in range(12):  # the sun's reflection on the water
        y = horizon + (k + 1) * (h - horizon) / 14
        half = r * (1.2 - k * 0.08)
        draw.rectangle(
            (sun_x - half, y, sun_x + half, y + max(1, h * 0.004)),
            fill=(*_hsv(hue + 0.12, 0.3, 1), 90),
        )
    return sky.filter(ImageFilter.SMOOTH)


def stage(final: Image.Image, index: int, count: int) -> Image.Image:
    """Partial image `index` of `count`: coarse first, each sharper than the last."""
    w, h = final.size
    factor = 2 ** (count - index + 2)  # count=3: 1/32, 1/16, 1/8 of the size
    small = final.resize((max(1, w // factor), max(1, h // factor)), Image.Resampling.BOX)
    return small.resize((w, h), Image.Resampling.BICUBIC)


def encode(image: Image.Image, fmt: str) -> tuple[bytes, str]:
    buf = io.BytesIO()
    if fmt in ("jpeg", "jpg"):
        image.save(buf, "JPEG", quality=85)
        return buf.getvalue(), "jpeg"
    if fmt == "webp":
        try:
            image.save(buf, "WEBP", quality=85)
            return buf.getvalue(), "webp"
        except (OSError, KeyError):
            buf = io.BytesIO()
    image.save(buf, "PNG", compress_level=3)
    return buf.getvalue(), "png"
