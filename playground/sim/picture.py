"""A procedural landscape (sky, sun, mountains, water) drawn from a prompt's hash, as PNG bytes."""

from __future__ import annotations

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


RGB = tuple[int, int, int]
# (sky top, sky at the horizon, sun or moon, night?) — a few pleasant times of day.
_PALETTES: list[tuple[RGB, RGB, RGB, bool]] = [
    ((40, 30, 90), (255, 150, 80), (255, 232, 160), False),  # sunset
    ((60, 90, 170), (250, 200, 170), (255, 250, 215), False),  # dawn
    ((70, 130, 220), (190, 225, 250), (255, 255, 225), False),  # day
    ((25, 20, 60), (205, 95, 140), (255, 205, 165), False),  # dusk
    ((6, 10, 36), (45, 65, 115), (235, 235, 245), True),  # night, with stars
]
_SHADOW: RGB = (18, 22, 40)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (
        int(a[0] + (b[0] - a[0]) * t),
        int(a[1] + (b[1] - a[1]) * t),
        int(a[2] + (b[2] - a[2]) * t),
    )


def _jitter(c: RGB, rng: random.Random) -> RGB:
    return _mix(c, (rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)), 0.12)


def _gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    h = 256
    strip = Image.new("RGB", (1, h))
    for y in range(h):
        strip.putpixel((0, y), _mix(top, bottom, (y / (h - 1)) ** 1.4))
    return strip.resize(size, Image.Resampling.BILINEAR)


def _ridge(rng: random.Random, base: float, rough: float, n: int = 65) -> list[float]:
    """A mountain ridge by midpoint displacement."""
    pts = [base + rng.uniform(-rough, rough) / 2, base + rng.uniform(-rough, rough) / 2]
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
    """The final picture: sky, sun or moon, three ranges of mountains, a lake that mirrors them."""
    rng = random.Random(seed_of("picture", prompt))
    w, h = size
    top, low, sun, night = _PALETTES[rng.randrange(len(_PALETTES))]
    top, low = _jitter(top, rng), _jitter(low, rng)
    horizon = int(h * rng.uniform(0.6, 0.7))
    sky = _gradient((w, horizon), top, low)
    draw = ImageDraw.Draw(sky, "RGBA")
    if night:
        for _ in range(max(20, w * horizon // 6000)):
            x, y, r = rng.uniform(0, w), rng.uniform(0, horizon * 0.7), rng.uniform(0.4, 1.6)
            draw.ellipse((x - r, y - r, x + r, y + r), fill=(255, 255, 240, rng.randint(90, 230)))
    r = min(w, h) * rng.uniform(0.06, 0.1)
    sx, sy = w * rng.uniform(0.2, 0.8), horizon * rng.uniform(0.22, 0.42)
    for k in range(8, 0, -1):  # a soft glow
        rr = r * (1 + k * 0.45)
        draw.ellipse((sx - rr, sy - rr, sx + rr, sy + rr), fill=(*sun, 10))
    draw.ellipse((sx - r, sy - r, sx + r, sy + r), fill=sun)
    for layer in range(3):  # far ranges are paler (atmospheric perspective)
        base = horizon - h * (0.2 - layer * 0.065)
        ridge = _ridge(rng, base, h * (0.12 - layer * 0.03))
        step = w / (len(ridge) - 1)
        poly = [(i * step, y) for i, y in enumerate(ridge)] + [(w, horizon), (0, horizon)]
        draw.polygon(poly, fill=_mix(low, _SHADOW, 0.45 + layer * 0.25))
    picture = Image.new("RGB", size)
    picture.paste(sky, (0, 0))
    # The lake mirrors the land above it, darker and slightly blurred.
    depth = h - horizon
    mirror = sky.transpose(Image.Transpose.FLIP_TOP_BOTTOM).crop((0, 0, w, depth))
    if mirror.height < depth:
        mirror = mirror.resize((w, depth))
    mirror = mirror.filter(ImageFilter.GaussianBlur(max(1, h // 300)))
    shade = Image.new("RGB", (w, depth), _mix(top, _SHADOW, 0.5))
    picture.paste(Image.blend(mirror, shade, 0.35), (0, horizon))
    lake = ImageDraw.Draw(picture, "RGBA")
    for k in range(1, 14):  # ripples of light under the sun
        y = horizon + k * depth / 15
        half = r * (1.3 - k * 0.08) * rng.uniform(0.7, 1.1)
        lake.rectangle((sx - half, y, sx + half, y + max(1, h // 300)), fill=(*sun, 70))
    return picture.filter(ImageFilter.SMOOTH)


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
