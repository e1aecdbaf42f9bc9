"""Write docs/screenshot-<route>.png for every panel, through the headless contract (the sized,
mid-stream ones, docs/screenshot-<W>x<H>-<theme>.png, are scripts/screenshots_markdown.py's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (route, prompt, extra body) — chosen so each panel shows what it is for.
SHOTS: list[tuple[str, str | None, dict[str, object]]] = [
    (
        "chat",
        "What is the weather like in Paris, and why do streams matter?",
        {"reasoning_effort": "low"},
    ),
    ("responses", "Write a haiku about streaming tokens.", {"reasoning": {"effort": "low"}}),
    (
        "messages",
        "What is the weather like in Paris today?",
        {
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "max_tokens": 4096,
            "tools": [
                {
                    "name": "get_weather",
                    "description": "Get the current weather in a city.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                }
            ],
        },
    ),
    ("images", "A lighthouse on a rocky coast at sunset", {"partial_images": 2}),
    ("speech", "Hello! This is the playground's built-in simulator speaking.", {}),
    ("transcription", None, {}),
    ("music", "A calm piano loop with soft rain", {"duration": 4}),
]


def main() -> int:
    out = ROOT / "docs"
    out.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
        env["PLAYGROUND_SETTINGS"] = str(Path(tmp) / "settings.ini")  # never the user's settings
        env["PLAYGROUND_DATA_DIR"] = str(Path(tmp) / "data")
        for route, prompt, body in SHOTS:
            target = out / f"screenshot-{route}.png"
            args = [
                sys.executable,
                "-m",
                "playground",
                "--route",
                route,
                "--pace",
                "fast",
                "--screenshot",
                str(target),
                "--exit-when-done",
                "--size",
                "1560x920",
            ]
            if prompt is not None:
                args += ["--prompt", prompt]
            if body:
                args += ["--body", json.dumps(body)]
            proc = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
            if proc.returncode != 0:
                print(f"{route}: failed\n{proc.stderr}", file=sys.stderr)
                return 1
            print(target.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
