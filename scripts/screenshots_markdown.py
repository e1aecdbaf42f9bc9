"""Write docs/screenshot-markdown-<theme>-<W>x<H>.png: the chat panel mid-stream, live Markdown.

The real window on the built-in simulator, offscreen: an answer with a heading, a list, a fenced
Python block and a table, grabbed while its last paragraph still streams. Run from an install
(``pip install -e .``): ``python scripts/screenshots_markdown.py``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIZES = [(1024, 700), (1280, 720), (1920, 1080)]  # asked for; a file is named by what it got
PROMPT = "Write a Python function that keeps prime numbers, and compare the options in a table"


async def _shoot(theme: str, width: int, height: int, target: Path) -> None:
    from playground.ui.main_window import MainWindow
    from PySide6.QtCore import QSettings

    from playground.sim.server import SimServer

    sim = SimServer("127.0.0.1", 0).start()
    settings = QSettings(str(target.with_suffix(".ini")), QSettings.Format.IniFormat)
    window = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False)
    window.setMinimumSize(0, 0)  # the size asked for, even where the window's own minimum is more
    window.resize(width, height)
    window.show()
    await asyncio.sleep(0.3)
    panel = window.show_panel("chat")
    panel.set_pace("15")
    panel.editor.set_prompt(PROMPT)
    panel.send()
    answer = panel.widgets["answer"]

    def table_closed() -> bool:
        live = answer.pane(0).text.live_markdown
        return live is not None and any(s.block.kind == "table" for s in live.closed)

    for _ in range(3000):
        if table_closed():
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.12)  # a few tokens of the last paragraph: still streaming
    shot = window.grab()
    got = f"{shot.width()}x{shot.height()}"
    if got != f"{width}x{height}":
        print(f"note: the window would not shrink to {width}x{height}: it is {got}")
    shot.save(str(target).replace(f"{width}x{height}", got))
    panel.stop()
    await panel.session.wait()
    window._closing = True
    await window.shutdown()
    window.close()
    sim.stop()


def _child(theme: str, width: int, height: int, target: str) -> int:
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    from playground.ui.theme import apply_theme

    app = QApplication([])
    apply_theme(app, theme == "dark")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(_shoot(theme, width, height, Path(target)))
    return 0


def main() -> int:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        return _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        env["PLAYGROUND_SETTINGS"] = str(Path(tmp) / "settings.ini")  # never the user's settings
        env["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
        for theme in ("light", "dark"):
            for width, height in SIZES:
                target = out / f"screenshot-markdown-{theme}-{width}x{height}.png"
                args = [sys.executable, __file__, "--child", theme, str(width), str(height)]
                subprocess.run([*args, str(target)], env=env, check=True, timeout=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
