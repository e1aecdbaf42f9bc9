"""Screenshots of the Conversations dock and of the Images panel, light and dark, at 1024x700
and 1920x1080, into a folder (default /tmp/conversations-shots).

Three conversations are made first through the headless contract on the built-in simulator
(repeated --prompt: one conversation each), then a fresh window on the same data folder shows
the Conversations dock with the newest opened in its panel. The Images panel is a headless run
on a fresh start. Run from an install: ``python scripts/screenshots_conversations.py [OUT]``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = [(1024, 700), (1920, 1080)]
THEMES = ("light", "dark")
TALKS = [
    ("chat", ["Explain server-sent events briefly", "How do they differ from WebSockets?"]),
    ("messages", ["Plan a day in Lyon", "Add a lunch suggestion"]),
    ("responses", ["Write a haiku about streaming tokens"]),
]


def _shoot_dock(width: int, height: int, dark: bool, target: str) -> None:
    """In this process: a window on the data folder, the dock shown, the newest opened."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from playground.ui.kit.theme import apply_theme
    from playground.ui.window.shell import MainWindow

    app = QApplication([])
    apply_theme(app, dark)
    settings = QSettings(os.environ["PLAYGROUND_SETTINGS"], QSettings.Format.IniFormat)
    window = MainWindow(
        settings, simulator_url="http://127.0.0.1:9", start_simulator=False, interactive=False
    )
    window.resize(width, height)
    window.show()
    docks = window.docks
    docks.show("conversations", True)
    view = docks.conversations_view
    view.refresh()
    newest = view.ids()[0]
    docks.open_conversation(newest)
    view.select(newest)
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)
    window.resize(width, height)
    app.processEvents()
    window.grab().save(target)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dock"]:
        width, height, theme, target = int(argv[1]), int(argv[2]), argv[3], argv[4]
        _shoot_dock(width, height, theme == "dark", target)
        return 0
    out = Path(argv[0] if argv else "/tmp/conversations-shots")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        env["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
        for route, prompts in TALKS:
            args = [sys.executable, "-m", "playground", "--route", route, "--pace", "instant"]
            for prompt in prompts:
                args += ["--prompt", prompt]
            run_env = env | {"PLAYGROUND_SETTINGS": str(Path(tmp) / "talk.ini")}
            subprocess.run([*args, "--exit-when-done"], env=run_env, check=True, timeout=120)
        for theme in THEMES:
            for width, height in SIZES:
                fresh = env | {
                    "PLAYGROUND_THEME": theme,
                    "PLAYGROUND_SETTINGS": str(Path(tmp) / f"{theme}-{width}.ini"),
                }
                dock = out / f"conversations-dock-{width}x{height}-{theme}.png"
                subprocess.run(
                    [sys.executable, __file__, "--dock", str(width), str(height), theme, str(dock)],
                    env=fresh,
                    check=True,
                    timeout=120,
                )
                images = out / f"images-{width}x{height}-{theme}.png"
                subprocess.run(
                    [
                        *(sys.executable, "-m", "playground", "--route", "images"),
                        *("--prompt", "A lighthouse on a rocky coast at sunset"),
                        *("--pace", "instant", "--size", f"{width}x{height}"),
                        *("--screenshot", str(images), "--exit-when-done"),
                    ],
                    env=fresh | {"PLAYGROUND_SETTINGS": str(Path(tmp) / f"i-{theme}-{width}.ini")},
                    check=True,
                    timeout=120,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
