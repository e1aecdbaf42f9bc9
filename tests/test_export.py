"""Exports: curl, Python and TypeScript from a captured run; the key is an env var reference, and
the exported Python reads the simulator's stream with the official SDK."""

from __future__ import annotations

import asyncio
import json
import math
import os
import shlex
import struct
import subprocess
import sys
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from playground.cli.export import main as export_main
from playground.protocol.requests import ROUTE_NAMES, SAMPLE_TOOL, RequestParams, build_body
from playground.runs.export import ExportError, export_request, to_curl, to_python, to_typescript
from playground.runs.history import RunHistory
from playground.transport.client import stream_request
from playground.transport.pipeline import TeeSink
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec

KEY = "sk-export-SECRET-99aa88bb77cc"


class RecSink:
    """Keeps what a run delivered: status, bytes, a transport error."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.body = b""
        self.error: object | None = None

    def on_request(self, *args: object) -> None:
        pass

    def on_response(self, status: int, headers: object, t: float) -> None:
        self.status = status

    def on_chunk(self, t: float, data: bytes) -> None:
        self.body += data

    def on_transport_error(self, error: object, t: float) -> None:
        self.error = error

    def on_end(self, t: float) -> None:
        pass


PARAMS: dict[str, RequestParams] = {
    "chat": RequestParams(model="sim-chat", prompt="Count to three.", include_usage=True),
    "responses": RequestParams(model="sim-chat", prompt="Say hello.", max_tokens=200),
    "messages": RequestParams(model="sim-claude", prompt="Say hello.", max_tokens=200),
    "images": RequestParams(
        model="gpt-image-1", prompt="a red fox", size="256x256", partial_images=1
    ),
    "speech": RequestParams(model="tts", input="Hello there.", voice="alloy"),
    "transcription": RequestParams(model="whisper", language="en"),
    "music": RequestParams(model="sim-music", prompt="calm piano", duration=1.0),
}


def _wav(path: Path) -> bytes:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(
            b"".join(struct.pack("<h", int(8000 * math.sin(i / 8))) for i in range(8000))
        )
    return path.read_bytes()


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    server_mod = pytest.importorskip("playground.sim.server")
    server = server_mod.SimServer().start()
    try:
        yield server.base_url
    finally:
        server.stop()


@pytest.fixture(scope="module")
def captures(sim: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One real run per route against the simulator, recorded by the history."""
    root = tmp_path_factory.mktemp("export")
    audio = _wav(root / "hello.wav")
    history = RunHistory(root / "history")
    paths: dict[str, Path] = {}

    async def main() -> None:
        for route in ROUTE_NAMES:
            files = (
                [("file", ("hello.wav", audio, "audio/wav"))] if route == "transcription" else None
            )
            spec = make_spec(
                provider_by_id("custom"),
                route,
                build_body(route, PARAMS[route]),
                KEY,
                base_url=sim,
                files=files,
                extra_headers={"X-Sim-Pace": "instant"},
            )
            rec = history.start_run(route, secrets=(KEY,))
            ui = RecSink()
            await stream_request(spec, TeeSink(ui, rec))
            assert ui.error is None and ui.status == 200, (route, ui.status, ui.body[:300])
            paths[route] = history.capture_path(rec.run_id)

    asyncio.run(main())
    return paths


def _request(route: str, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    body = build_body(route, PARAMS[route])
    if route == "transcription":
        body = {k: str(v).lower() if isinstance(v, bool) else v for k, v in body.items()}
        body["file"] = "@clip.mp3 (1234 bytes)"
    return {"method": "POST", "url": url, "headers": headers or {}, "body": body}


def test_curl_uses_env_var_and_round_trips_the_body() -> None:
    req = _request(
        "chat",
        "https://api.openai.com/v1/chat/completions",
        {
            "Authorization": "Bearer [redacted]",
            "X-Sim-Fault": "drop",
            "Accept": "text/event-stream",
        },
    )
    req["body"]["messages"][0]["content"] = "It's a test"  # a quote in the body
    text = to_curl(req, "chat")
    assert '"Authorization: Bearer $OPENAI_API_KEY"' in text and "[redacted]" not in text
    args = shlex.split(text.replace("\\\n", " "))
    assert args[:5] == ["curl", "-N", "-X", "POST", "https://api.openai.com/v1/chat/completions"]
    assert json.loads(args[args.index("-d") + 1]) == req["body"]
    assert "X-Sim-Fault: drop" in args and "Accept: text/event-stream" not in args


def test_anthropic_and_gateway_env_vars() -> None:
    anth = _request(
        "messages",
        "https://api.anthropic.com/v1/messages",
        {"x-api-key": "[redacted]", "anthropic-version": "2023-06-01"},
    )
    curl = to_curl(anth, "messages")
    assert '"x-api-key: $ANTHROPIC_API_KEY"' in curl and "anthropic-version: 2023-06-01" in curl
    py = to_python(anth, "messages")
    assert "anthropic.Anthropic(base_url='https://api.anthropic.com'" in py
    assert 'os.environ["ANTHROPIC_API_KEY"]' in py
    ts = to_typescript(anth, "messages")
    assert "@anthropic-ai/sdk" in ts and "process.env.ANTHROPIC_API_KEY" in ts
    vultr = _request(
        "chat", "https://api.vultrinference.com/v1/chat/completions", {"Authorization": "x"}
    )
    assert "$VULTR_INFERENCE_API_KEY" in to_curl(vultr, "chat")
    assert 'os.environ["VULTR_INFERENCE_API_KEY"]' in to_python(vultr, "chat")
    assert "process.env.VULTR_INFERENCE_API_KEY" in to_typescript(vultr, "chat")
    orr = _request("chat", "https://openrouter.ai/api/v1/chat/completions", {"Authorization": "x"})
    assert "base_url='https://openrouter.ai/api/v1'" in to_python(orr, "chat")


@pytest.mark.parametrize("route", ROUTE_NAMES)
@pytest.mark.parametrize("stream", [True, False])
def test_every_route_exports_valid_python_without_the_key(route: str, stream: bool) -> None:
    params = PARAMS[route]
    params = RequestParams(**{**params.__dict__, "stream": stream, "tools": [SAMPLE_TOOL]})
    req = _request(route, "http://127.0.0.1:8000/v1" + "/x", {"Authorization": "Bearer [redacted]"})
    req["body"] = build_body(route, params)
    if route == "transcription":
        req["body"]["file"] = "@clip.mp3 (1234 bytes)"
    req["url"] = (
        "http://127.0.0.1:8000/v1"
        + {
            "chat": "/chat/completions",
            "responses": "/responses",
            "messages": "/messages",
            "images": "/images/generations",
            "speech": "/audio/speech",
            "transcription": "/audio/transcriptions",
            "music": "/music",
        }[route]
    )
    for fmt in ("curl", "python", "typescript"):
        text = export_request(req, route, fmt)
        assert "[redacted]" not in text and "PLAYGROUND_API_KEY" in text
    code = to_python(req, route)
    compile(code, f"<{route}>", "exec")  # valid Python
    if route == "transcription":
        assert "AUDIO_FILE = 'clip.mp3'" in code
        assert 'fs.createReadStream("clip.mp3")' in to_typescript(req, route)


def test_unknown_inputs_raise_export_error() -> None:
    with pytest.raises(ExportError):
        export_request({"url": "http://x/v1/chat/completions"}, "chat", "rust")
    with pytest.raises(ExportError):
        to_curl({"method": "POST"}, "chat")


def test_cli_usage_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export_main([]) == 2
    assert export_main(["x.jsonl", "--as", "cobol"]) == 2
    assert export_main([str(tmp_path / "missing.jsonl")]) == 2
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01 not json at all\nreally\n")
    assert export_main([str(garbage)]) == 2
    raw = tmp_path / "raw.sse"  # raw `curl -N` output: no request to export
    raw.write_text('data: {"choices":[]}\n\ndata: [DONE]\n\n')
    assert export_main([str(raw)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 5 and all(line.startswith("playground export: ") for line in err)
    assert "Traceback" not in "".join(err)


@pytest.mark.parametrize("fmt", ["curl", "python", "typescript"])
def test_cli_prints_the_export(
    captures: dict[str, Path], fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export_main([str(captures["chat"]), "--as", fmt]) == 0
    out = capsys.readouterr().out
    assert "PLAYGROUND_API_KEY" in out and KEY not in out and "X-Sim-Pace" in out


@pytest.mark.slow
def test_exported_python_runs_against_the_simulator(
    captures: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _wav(tmp_path / "hello.wav")
    env = {**os.environ, "PLAYGROUND_API_KEY": KEY}
    scripts = []
    for route, capture in captures.items():
        assert export_main([str(capture), "--as", "python"]) == 0
        script = capsys.readouterr().out
        assert KEY not in script
        path = tmp_path / f"{route}.py"
        path.write_text(script)
        scripts.append(str(path))
    # One interpreter runs every script as __main__ (one SDK import instead of seven), each with
    # its own stdout file and its exit status, as `python script.py` would have.
    driver = (
        "import contextlib, runpy, sys, traceback\n"
        "for path in sys.argv[1:]:\n"
        "    with open(path[:-3] + '.out', 'w') as out, contextlib.redirect_stdout(out):\n"
        "        try:\n"
        "            runpy.run_path(path, run_name='__main__')\n"
        "        except BaseException:\n"
        "            open(path[:-3] + '.err', 'w').write(traceback.format_exc())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", driver, *scripts],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = {}
    for route in captures:
        err = tmp_path / f"{route}.err"
        assert not err.exists(), (route, err.read_text()[-2000:] if err.exists() else "")
        results[route] = (0, (tmp_path / f"{route}.out").read_text(), "")
    assert " in, " in results["chat"][1] and " out" in results["chat"][1]
    assert len(results["chat"][1].strip()) > 20
    assert " in, " in results["responses"][1]
    assert "stop_reason:" in results["messages"][1]
    assert (tmp_path / "image.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "partial_0.png").exists()
    assert (tmp_path / "speech.pcm").stat().st_size > 1000
    assert results["transcription"][1].strip()
    assert results["music"][1].startswith("200")
    # Every file the exports and runs wrote is free of the key.
    for path in [*tmp_path.rglob("*"), *next(iter(captures.values())).parent.rglob("*")]:
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def _replay_curl(command: str, env: dict[str, str]) -> tuple[str, str, dict[str, str], Any]:
    """Read a curl command line back into (method, url, headers, body or form) as curl would."""
    args = shlex.split(command.replace("\\\n", " "))
    assert args[:2] == ["curl", "-N"]
    method, url = args[3], args[4]
    headers: dict[str, str] = {}
    form: dict[str, str] = {}
    data = None
    rest = args[5:]
    for flag, value in zip(rest[::2], rest[1::2]):
        for name, val in env.items():
            value = value.replace(f"${name}", val)
        if flag == "-H":
            name, _, val = value.partition(": ")
            headers[name] = val
        elif flag == "-d":
            data = value
        elif flag == "-F":
            key, _, val = value.partition("=")
            form[key] = val
        else:
            raise AssertionError(flag)
    return method, url, headers, data if data is not None else form


@pytest.mark.parametrize("route", ["chat", "messages", "transcription"])
def test_exported_curl_is_what_was_sent(
    captures: dict[str, Path], route: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import httpx

    assert export_main([str(captures[route]), "--as", "curl"]) == 0
    command = capsys.readouterr().out
    method, url, headers, payload = _replay_curl(command, {"PLAYGROUND_API_KEY": KEY})
    assert headers["Authorization"] == f"Bearer {KEY}" and headers["X-Sim-Pace"] == "instant"
    if route == "transcription":
        assert payload["file"] == "@hello.wav" and payload["stream"] == "true"
        audio = _wav(tmp_path / "hello.wav")
        fields = {k: v for k, v in payload.items() if k != "file"}
        response = httpx.request(
            method,
            url,
            headers=headers,
            data=fields,
            files={"file": ("hello.wav", audio)},
            timeout=30,
        )
    else:
        response = httpx.request(method, url, headers=headers, content=payload, timeout=30)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["content-type"].startswith("text/event-stream")
