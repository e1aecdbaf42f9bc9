"""--save-capture on a conversation of several exchanges: every exchange is saved, in order, and
the file asked for holds the last one, so `playground export` of it sends the last request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from playground.cli.export import main as export_main
from playground.protocol.capture import read_capture
from playground.proxy.cli import build_hub
from playground.proxy.exchange import Exchange, Listener
from playground.proxy.server import ProxyServer
from playground.sim.server import SimServer
from playground.ui.app import capture_series_path


class _Requests(Listener):
    def __init__(self) -> None:
        self.bodies: list[Any] = []

    def on_request(self, ex: Exchange) -> None:
        self.bodies.append(json.loads(ex.request_body or b"null"))


def _headless(tmp: Path, *args: str) -> dict[str, Any]:
    dump = tmp / "dump.json"
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PLAYGROUND_SETTINGS=str(tmp / "settings.ini"),
        PLAYGROUND_DATA_DIR=str(tmp / "data"),
    )
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "playground", *args, "--pace", "instant"),
            *("--dump-state", str(dump), "--exit-when-done"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    value: dict[str, Any] = json.loads(dump.read_text())
    return value


def test_the_numbered_names_go_before_the_capture_suffix() -> None:
    assert capture_series_path(Path("a/run.capture.jsonl"), 2) == Path("a/run.2.capture.jsonl")
    assert capture_series_path(Path("run.jsonl"), 1) == Path("run.1.jsonl")
    assert capture_series_path(Path("run"), 3) == Path("run.3")


def test_every_exchange_is_saved_and_the_export_sends_the_last_request(
    tmp_path: Path, capsys: Any
) -> None:
    target = tmp_path / "talk.capture.jsonl"
    _headless(
        tmp_path,
        *("--route", "chat", "--model", "sim-chat"),
        *("--prompt", "What is SSE?", "--prompt", "And in one line?"),
        *("--save-capture", str(target)),
    )
    first = read_capture(capture_series_path(target, 1))
    last = read_capture(target)
    assert not capture_series_path(target, 2).exists()  # the last one is the file asked for
    assert first.request is not None and last.request is not None
    first_turns = first.request["body"]["messages"]
    last_turns = last.request["body"]["messages"]
    assert [m["role"] for m in first_turns] == ["user"]
    assert [m["role"] for m in last_turns] == ["user", "assistant", "user"]
    assert last_turns[-1]["content"] == "And in one line?"
    assert first.end is not None and last.end is not None  # both ran to their end

    assert export_main([str(target), "--as", "python"]) == 0
    script = tmp_path / "snippet.py"
    script.write_text(capsys.readouterr().out)
    seen = _Requests()
    with SimServer() as sim:
        hub, _verdicts = build_hub(None, None)
        hub.subscribe(seen)
        proxy = ProxyServer(sim.base_url, hub).start()
        try:
            env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
            env |= {"PLAYGROUND_API_KEY": "sk-test", "PLAYGROUND_BASE_URL": proxy.base_url}
            done = subprocess.run(
                [sys.executable, str(script)],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
        finally:
            proxy.stop()
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(seen.bodies) == 1
    assert seen.bodies[0]["messages"] == last_turns


def test_a_tool_round_is_saved_as_its_own_exchange_with_the_results(tmp_path: Path) -> None:
    target = tmp_path / "tools.capture.jsonl"
    tool = {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
        },
    }
    dump = _headless(
        tmp_path,
        *("--route", "chat", "--model", "sim-chat", "--prompt", "What time is it in Oslo?"),
        *("--body", json.dumps({"tools": [tool]}), "--tool-result", 'get_time={"t": "10:00"}'),
        *("--save-capture", str(target)),
    )
    assert len(dump["requests"]) == 2
    first = read_capture(capture_series_path(target, 1))
    last = read_capture(target)
    assert first.request is not None and last.request is not None
    assert first.request["body"] == dump["requests"][0]["body"]
    assert last.request["body"] == dump["requests"][1]["body"]
    assert [m["role"] for m in last.request["body"]["messages"]] == ["user", "assistant", "tool"]
