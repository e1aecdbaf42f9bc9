"""Write docs/screenshot-<W>x<H>-<theme>.png: the chat panel mid-stream, Markdown rendered live.

The real window on the built-in simulator, offscreen, at 1024x700 (a 13-inch laptop), 1280x720
and 1920x1080, light and dark: an answer with a heading, a fenced Python block, a list and a
table, grabbed while its last paragraph still streams. Each shot runs in a child process of its
own (a fresh QApplication takes the theme; settings and history go to a temporary folder, never
the user's). Run from an install (``pip install -e .``): ``python scripts/screenshots_markdown.py``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A 13-inch laptop, a small desktop window and a full-HD screen: the layout must hold at each.
SIZES = ((1024, 700), (1280, 720), (1920, 1080))
PROMPT = "Write a Python function that keeps prime numbers, and compare the options in a table"


async def _shoot(width: int, height: int, target: Path) -> None:
    from PySide6.QtCore import QSettings

    from playground.sim.server import SimServer
    from playground.ui.window.shell import MainWindow

    sim = SimServer("127.0.0.1", 0).start()
    settings = QSettings(os.environ["PLAYGROUND_SETTINGS"], QSettings.Format.IniFormat)
    window = MainWindow(
        settings, simulator_url=sim.base_url, start_simulator=False, interactive=False
    )
    window.resize(width, height)
    window.show()
    await asyncio.sleep(0.3)
    panel = window.show_panel("chat")
    window.provider_bar.model_combo.setCurrentText("sim-chat")  # no thinking: room to answer
    panel.set_pace("15")  # ms per token
    panel.editor.set_prompt(PROMPT)
    panel.send()
    text = panel.widgets["answer"].pane(0).text

    def table_closed() -> bool:
        live = text.live_markdown
        return live is not None and any(s.block.kind == "table" for s in live.closed)

    for _ in range(3000):
        if table_closed():
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.25)  # a few words of the last paragraph: still streaming
    if panel.session.state is None or panel.session.state.status != "streaming":
        raise SystemExit(f"{target.name}: the stream ended before the shot")
    if window.size().toTuple() != (width, height):
        window.resize(width, height)
        await asyncio.sleep(0.1)
    shot = window.grab()
    got = f"{shot.width()}x{shot.height()}"
    if got != f"{width}x{height}":
        raise SystemExit(f"{target.name}: the window is {got}, not {width}x{height}")
    shot.save(str(target))
    panel.stop()
    await panel.session.wait()
    window._closing = True
    await window.shutdown()
    window.close()
    sim.stop()


def _child(theme: str, width: int, height: int, target: str) -> int:
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    from playground.ui.kit.theme import apply_theme

    app = QApplication([])
    apply_theme(app, theme == "dark")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(_shoot(width, height, Path(target)))
    return 0


def main() -> int:
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        return _child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        env["PLAYGROUND_SETTINGS"] = str(Path(tmp) / "settings.ini")  # never the user's settings
        env["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
        for width, height in SIZES:
            for theme in ("light", "dark"):
                target = out / f"screenshot-{width}x{height}-{theme}.png"
                args = [sys.executable, __file__, "--child", theme, str(width), str(height)]
                subprocess.run([*args, str(target)], env=env, check=True, timeout=120)
                print(target.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
