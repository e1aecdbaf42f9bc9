"""`playground proxy` as a user runs it: its stdout lines, its captures, and no key in any file."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from playground.protocol.capture import read_capture
from playground.protocol.stream import StreamDecoder
from playground.proxy.cli import main
from playground.sim.server import SimServer

from .conftest import INSTANT, start_proxy

KEY = "sk-live-proxy-secret-5f3a9c"
ANT_KEY = "sk-ant-proxy-secret-77d1e0"
CHAT = {"model": "sim-chat", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
FIRST = re.compile(r"^proxy: (http://127\.0\.0\.1:\d+/v1) -> (\S+)$")


@pytest.fixture
def command(sim: SimServer, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str, Path]]:
    save = tmp_path / "saved"
    args = ["proxy", "--upstream", sim.base_url, "--port", "0", "--save", str(save)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "playground", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().rstrip("\n")
        match = FIRST.match(first)
        assert match, first
        assert match.group(2) == sim.base_url
        yield proc, match.group(1), save
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # reads both pipes to the end, then closes them


def _line(proc: subprocess.Popen[str]) -> dict[str, Any]:
    assert proc.stdout is not None
    line = json.loads(proc.stdout.readline())
    assert isinstance(line, dict)
    return line


def test_the_command_prints_its_address_then_a_line_per_exchange_and_keeps_no_key(
    command: tuple[subprocess.Popen[str], str, Path],
) -> None:
    proc, base, save = command
    auth = {"Authorization": f"Bearer {KEY}"} | INSTANT
    got = b""
    with httpx.stream("POST", base + "/chat/completions", json=CHAT, headers=auth) as r:
        for data in r.iter_raw():
            got += data
    chat = _line(proc)
    assert list(chat) == [
        "method",
        "path",
        "route",
        "http_status",
        "status",
        "events",
        "findings",
        "ttft_ms",
        "duration_ms",
        "capture",
        "cache",
        "cost",
    ]
    assert chat["route"] == "chat" and chat["status"] == "complete" and chat["http_status"] == 200
    # The first of its client, route and model; priced from the simulator's /v1/models.
    assert chat["cache"]["status"] in ("cold", "below_minimum") and chat["cost"]["total"] > 0
    ant = {"x-api-key": ANT_KEY, "anthropic-version": "2023-06-01", "anthropic-beta": "b1"}
    messages = CHAT | {"max_tokens": 64}
    httpx.post(base + "/messages", json=messages, headers=ant | INSTANT)
    assert _line(proc)["route"] == "messages"
    httpx.get(base + "/models", headers=auth, params={"key": KEY})
    models = _line(proc)
    assert models["route"] is None and models["status"] == "complete"
    httpx.post(base + "/chat/completions", json=CHAT, headers=auth | {"X-Sim-Fault": "http-401"})
    assert _line(proc)["status"] == "failed"

    # The capture holds exactly the bytes the client got, in the project's own format.
    capture = read_capture(Path(str(chat["capture"])), strict=True)
    assert capture.body == got and capture.route == "chat" and capture.end_status == "complete"
    assert capture.request is not None and capture.request["body"] == CHAT
    assert capture.request["headers"]["authorization"] == "Bearer [redacted]"
    ant_capture = read_capture(next(p for p in save.iterdir() if "messages" in p.name), strict=True)
    assert ant_capture.request is not None
    ant_headers = ant_capture.request["headers"]
    assert {ant_headers[k] for k in ("x-api-key", "anthropic-version", "anthropic-beta")} == {
        "[redacted]"
    }
    # No key in any file the proxy wrote, nor in what it printed.
    files = list(save.iterdir())
    assert len(files) == 4 and not [p for p in files if p.name.endswith(".part")]
    for path in files:
        data = path.read_bytes()
        assert KEY.encode() not in data and ANT_KEY.encode() not in data, path.name
    for line in (chat, models):
        assert KEY not in json.dumps(line)


def test_a_capture_is_on_disk_while_its_stream_is_still_arriving(
    sim: SimServer, tmp_path: Path
) -> None:
    proxy = start_proxy(sim.base_url, tmp_path)
    try:
        headers = {"X-Sim-Pace": "fast", "X-Sim-Tokens": "120"}
        with httpx.stream(
            "POST", proxy.base_url + "/chat/completions", json=CHAT, headers=headers
        ) as r:
            chunks = r.iter_raw()
            for _ in range(5):
                next(chunks)
            (part,) = tmp_path.iterdir()
            assert part.name.endswith(".part")  # journaled, not yet in place
            so_far = read_capture(part)
            assert so_far.response_status == 200 and so_far.chunks and so_far.end is None
            for _ in chunks:
                pass
        line = proxy.last()
        (done,) = tmp_path.iterdir()
        assert line["capture"] == str(done) and done.name.endswith(".capture.jsonl")
        decoder = StreamDecoder("chat")
        for t, data in read_capture(done).chunks:
            decoder.feed(data, t)
        decoder.finish(0.0)
        assert decoder.state.status == "complete"
    finally:
        proxy.server.stop()


def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--upstream", "ftp://example.org/v1"]) == 2
    assert "not an http or https URL" in capsys.readouterr().err
    assert main(["--upstream", "http://127.0.0.1:1/v1", "--port", "70000"]) == 2
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2
    assert "--upstream" in capsys.readouterr().err


def test_another_host_than_loopback_is_warned_about(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Tests bind only to 127.0.0.1: the server is replaced by one that fails to listen.
    import playground.proxy.server as server

    class _NoListen:
        def __init__(self, *args: object) -> None:
            pass

        def start(self) -> None:
            raise OSError(99, "Cannot assign requested address")

    monkeypatch.setattr(server, "ProxyServer", _NoListen)
    assert main(["--upstream", "http://127.0.0.1:1/v1", "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("warning: binding the proxy to 0.0.0.0")


def test_a_capture_that_cannot_be_written_is_said_and_the_relay_goes_on(
    sim: SimServer, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    proxy = start_proxy(sim.base_url, blocked / "sub")  # a folder that cannot be made
    try:
        r = httpx.post(proxy.base_url + "/chat/completions", json=CHAT, headers=INSTANT)
        assert r.status_code == 200 and r.content.endswith(b"data: [DONE]\n\n")
        line = proxy.last()
        assert line["status"] == "complete" and line["capture"] is None
    finally:
        proxy.server.stop()
    assert capfd.readouterr().err.count("could not be saved") == 1
