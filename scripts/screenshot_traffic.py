"""Write docs/screenshot-traffic*.png: the Traffic panel with the openai SDK going through it.

    PLAYGROUND_THEME=dark python scripts/screenshot_traffic.py OUT.png [WxH]

Offscreen: the real window, the built-in simulator as upstream, the SDK in threads.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any


def _sdk(base_url: str, route: str, prompt: str, pace: str) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="sk-screenshot", max_retries=0)
    headers = {"X-Sim-Pace": pace}
    if route == "responses":
        for _ in client.responses.create(
            model="sim-chat", input=prompt, stream=True, extra_headers=headers
        ):
            pass
        return
    if route == "models":
        client.models.list()
        return
    stream = client.chat.completions.create(
        model="sim-chat",
        messages=[{"role": "user", "content": prompt}],
        stream=True,
        extra_headers=headers,
    )
    for _ in stream:
        pass


async def _shoot(w: Any, out: Path) -> None:
    from PySide6.QtCore import Qt

    from playground.sim.server import SimServer

    sim = SimServer("127.0.0.1", 0).start()
    try:
        address = w.start_proxy(sim.base_url)
        dock = w.traffic
        w.resizeDocks([dock], [int(w.height() * 0.52)], Qt.Orientation.Vertical)
        jobs = [
            ("chat", "Why do rivers meander?", "instant"),
            ("models", "", "instant"),
            ("responses", "Write a haiku about streaming tokens.", "instant"),
            ("chat", "Tell me about the weather in Paris and why streams matter.", "25"),
        ]
        for route, prompt, pace in jobs:
            thread = threading.Thread(target=_sdk, args=(address, route, prompt, pace))
            thread.start()
            while thread.is_alive() and pace == "instant":
                await asyncio.sleep(0.05)
            if pace != "instant":
                await asyncio.sleep(2.5)  # mid-stream: the last one is still arriving
        panel = dock.panel
        panel.select(panel.model.entries[0])
        await asyncio.sleep(0.3)
        out.parent.mkdir(parents=True, exist_ok=True)
        w.grab().save(str(out))
        thread.join()
    finally:
        sim.stop()


def main() -> int:
    out = Path(sys.argv[1])
    w, h = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "1560x920").split("x"))
    tmp = tempfile.mkdtemp()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["PLAYGROUND_SETTINGS"] = str(Path(tmp) / "settings.ini")
    os.environ["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
    import qasync

    from playground.ui.app import _app, _finish_app
    from playground.ui.window.shell import MainWindow

    app = _app()
    _finish_app(app)
    window = MainWindow(interactive=False, start_simulator=False)
    window.resize(w, h)
    window.show()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(_shoot(window, out))
        window.stop_all()
        loop.run_until_complete(window.shutdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
