"""Where the bundled files are: the top-level ``resources/`` folder, through importlib.resources.

pyproject.toml maps that folder into the package as ``playground.resources``, so a wheel, a pipx
install and an editable install all reach it by the same module name; nothing here depends on
where a checkout is.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = [
    "CAPTURE_SUFFIX",
    "ICON_NAME",
    "PACKAGE",
    "SAMPLE_CAPTURES",
    "icon_png",
    "icon_png_sizes",
    "icon_svg",
    "resource",
    "route_icon_svg",
    "sample_capture",
    "sample_evaluation",
    "sample_wav",
]

PACKAGE = "playground.resources"
ICON_NAME = "playground"  # the icon theme name (the .desktop entry's Icon=) and the file stem
CAPTURE_SUFFIX = ".capture.jsonl"  # what the window saves runs as (playground.runs.history)
# One capture per route, recorded from the simulator by scripts/record_samples.py; what each shows.
SAMPLE_CAPTURES: dict[str, str] = {
    "chat": "Chat completions: reasoning, then a tool call",
    "responses": "Responses: reasoning, then text",
    "messages": "Messages: thinking with its signature, then a tool call",
    "images": "Images: partial images, then the final one",
    "speech": "Speech: streamed PCM audio",
    "transcription": "Transcription: text deltas of the sample recording",
    "music": "Music: a song streamed while it renders",
}


def resource(*parts: str) -> Path:
    """The bundled file ``parts`` (e.g. ``"icons", "playground.svg"``) as a path on disk.

    pip unpacks every wheel into a folder (never a zip), so the traversable is a real path; Qt
    and the desktop-entry installer need one.
    """
    found = files(PACKAGE)
    for part in parts:  # one name at a time: a namespace package's traversable takes only one
        found = found.joinpath(part)
    return Path(str(found))


def icon_svg() -> Path:
    return resource("icons", f"{ICON_NAME}.svg")


def icon_png_sizes() -> list[int]:
    """The sizes the PNG icons come in (``icons/playground-<N>.png``), smallest first."""
    sizes = []
    for path in resource("icons").glob(f"{ICON_NAME}-*.png"):
        stem = path.stem.rpartition("-")[2]
        if stem.isdigit():
            sizes.append(int(stem))
    return sorted(sizes)


def icon_png(size: int) -> Path:
    return resource("icons", f"{ICON_NAME}-{size}.png")


def route_icon_svg(route: str, *, dark: bool) -> Path:
    """The icon drawn for ``route``'s tab (scripts/make_route_icons.py), for a dark or a light
    palette: ``icons/routes/<route>-dark.svg`` or ``-light.svg``."""
    return resource("icons", "routes", f"{route}-{'dark' if dark else 'light'}.svg")


def sample_wav() -> Path:
    """The short WAV the transcription panel sends when no file is chosen."""
    return resource("samples", "hello.wav")


def sample_capture(route: str) -> Path:
    """The bundled sample capture of ``route`` (one of ``SAMPLE_CAPTURES``)."""
    return resource("captures", f"{route}{CAPTURE_SUFFIX}")


def sample_evaluation() -> Path:
    """The example evaluation suite (docs/evaluate.md), which passes on the built-in simulator."""
    return resource("evaluations", "sample.eval.json")
