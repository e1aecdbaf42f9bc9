"""Write docs/screenshot-transcript-<theme>-<W>x<H>.png: a long conversation in the transcript.

The real window on the built-in simulator (a loopback server this script starts), offscreen:
on Messages with thinking, a first exchange, a question answered with two parallel tool calls
(both results sent back), an answer regenerated (its turn shows the two branches, ◀ 2/2 ▶), and
a last question refused with HTTP 429 (the failed turn says so on itself, with Retry), then a
date put into the system prompt (the composer warns the next request will miss the prompt
cache, at the system prompt; each answer's turn shows its cache and cost). Run from
an install (``pip install -e .``): ``python scripts/screenshots_transcript.py [OUT_DIR]``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SIZES = [(1024, 700), (1920, 1080)]
THEMES = ("light", "dark")
WEATHER = {
    "name": "get_weather",
    "description": "Current weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
TIME = {
    "name": "get_time",
    "description": "Local time in a timezone",
    "input_schema": {
        "type": "object",
        "properties": {"timezone": {"type": "string"}},
        "required": ["timezone"],
    },
}
RESULTS = {"get_weather": '{"temp_c": 18, "sky": "clear"}', "get_time": '{"time": "09:40"}'}


async def _run(panel: Any, action: Any = None) -> str:
    (action or panel.send)()
    await asyncio.sleep(0)
    status: str = await panel.session.wait()
    await asyncio.sleep(0.2)  # the run's end: its turn joins the thread, the views finish
    return status


async def _converse(window: Any) -> None:
    panel = window.show_panel("messages")
    panel.set_pace("instant")
    panel.editor.thinking.setValue(2048)
    panel.editor.system.setPlainText("You are a concise travel assistant.")
    panel.editor.set_prompt("I land in Paris tomorrow morning. What should I do first?")
    await _run(panel)
    body = panel.editor.body()
    panel.editor.set_body({**body, "tools": [WEATHER, TIME]})
    panel.editor.set_prompt("What is the weather and the time in Paris right now?")
    await _run(panel)
    view = panel.conversation.view
    for editor in view.result_editors:
        editor.edit.setPlainText(RESULTS.get(editor.call.name, "{}"))
    await _run(panel, view.submit_results)
    last = view.blocks[-1]
    if last.regenerate_button is not None:
        await _run(panel, last.regenerate_button.click)
    panel.set_fault("http-429")
    panel.editor.set_prompt("And what about tomorrow afternoon?")
    await _run(panel)
    panel.set_fault("none")
    # A date put into the system prompt: the composer warns that the next request misses the
    # prompt cache, and where (the cost and cache of each answer are on its turn).
    panel.editor.system.setPlainText("You are a concise travel assistant. Today is 5 December.")
    panel.editor.set_prompt("What should I pack?")
    await asyncio.sleep(1.5)


def _shoot(width: int, height: int, dark: bool, target: Path, data: Path) -> None:
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from playground.sim.server import SimServer
    from playground.ui.kit.theme import apply_theme
    from playground.ui.window.shell import MainWindow

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    apply_theme(app, dark)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    server = SimServer("127.0.0.1", 0).start()
    settings = QSettings(str(data / f"settings-{width}-{dark}.ini"), QSettings.Format.IniFormat)
    window = MainWindow(
        settings, simulator_url=server.base_url, start_simulator=False, interactive=False
    )
    window.resize(width, height)
    window.show()

    async def main() -> None:
        await asyncio.sleep(0.3)
        await _converse(window)
        await asyncio.sleep(0.5)
        window.grab().save(str(target))
        window._closing = True
        await window.shutdown()

    try:
        loop.run_until_complete(main())
    finally:
        window.close()
        server.stop()
        loop.close()


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "docs"
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")  # never the user's
        for theme in THEMES:
            for width, height in SIZES:
                target = out / f"screenshot-transcript-{theme}-{width}x{height}.png"
                _shoot(width, height, theme == "dark", target, Path(tmp))
                print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
