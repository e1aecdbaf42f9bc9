"""Write docs/screenshot-thread-<theme>-<W>x<H>.png: a messages conversation with a tool loop.

The real window on the built-in simulator, offscreen, through the headless options: an earlier
exchange from a conversation file, a question that calls two tools in parallel, both answered
(``--tool-result``), and the answer that uses them. Run from an install (``pip install -e .``):
``python scripts/screenshots_thread.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playground.protocol.requests import SAMPLE_TOOL, to_anthropic_tool

ROOT = Path(__file__).resolve().parents[1]
SIZES = [(1024, 700), (1560, 920)]  # the smallest supported, and the headless default
TIME_TOOL = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Local time in a timezone",
        "parameters": {
            "type": "object",
            "properties": {"timezone": {"type": "string"}},
            "required": ["timezone"],
        },
    },
}
CONVERSATION = {
    "system": "You are a concise travel assistant.",
    "messages": [
        {"role": "user", "content": "I land in Paris tomorrow morning."},
        {"role": "assistant", "content": "Welcome! Ask me anything about your first day."},
    ],
}


def main() -> int:
    out = ROOT / "docs"
    with tempfile.TemporaryDirectory() as tmp:
        conversation = Path(tmp) / "conversation.json"
        conversation.write_text(json.dumps(CONVERSATION))
        body = {"tools": [to_anthropic_tool(SAMPLE_TOOL), to_anthropic_tool(TIME_TOOL)]}
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        env["PLAYGROUND_SETTINGS"] = str(Path(tmp) / "settings.ini")  # never the user's settings
        env["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
        for theme in ("light", "dark"):
            for width, height in SIZES:
                target = out / f"screenshot-thread-{theme}-{width}x{height}.png"
                args = [
                    *(sys.executable, "-m", "playground", "--route", "messages"),
                    *("--model", "sim-reasoner", "--pace", "instant"),
                    *("--conversation", str(conversation)),
                    *("--prompt", "What is the weather and the time in Paris?"),
                    *("--body", json.dumps(body)),
                    *("--tool-result", 'get_weather={"temp_c": 18, "sky": "clear"}'),
                    *("--tool-result", 'get_time={"time": "09:40", "timezone": "Europe/Paris"}'),
                    *("--size", f"{width}x{height}", "--screenshot", str(target)),
                    "--exit-when-done",
                ]
                subprocess.run(args, env=env | {"PLAYGROUND_THEME": theme}, check=True, timeout=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
