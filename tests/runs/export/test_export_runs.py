"""Exported code runs as written: every route's Python snippet with this interpreter and every
Node snippet with `node` (the SDKs npm-installed once per session), unchanged, against the real
simulator; what each prints is exactly what the recorded run streamed.

The runs are recorded on one simulator that is stopped before any snippet runs (as the window's
temporary one is gone when a user pastes the code), and the snippets reach a second one through
$PLAYGROUND_BASE_URL, with the key from $PLAYGROUND_API_KEY: both environment variables are
proven, and a snippet that still pointed at the run's port would fail.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from playground.assets import sample_wav
from playground.cli.export import main as export_main
from playground.protocol.capture import read_capture
from playground.protocol.requests import SAMPLE_TOOL, RequestParams, build_body
from playground.runs.history import RunHistory
from playground.transport.client import stream_request
from playground.transport.pipeline import TeeSink
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec

pytestmark = pytest.mark.slow

KEY = "sk-export-RUNS-SECRET-5566ddeeff"
SAMPLE = sample_wav()

# name -> (route, what the editor sets); every one streams.
CASES: dict[str, tuple[str, RequestParams]] = {
    "chat-tool": (
        "chat",
        RequestParams(
            model="sim-reasoner",
            prompt="What's the weather in Paris?",
            tools=[SAMPLE_TOOL],
            include_usage=True,
        ),
    ),
    "chat-text": ("chat", RequestParams(model="sim-chat", prompt="Count to three.")),
    "responses": (
        "responses",
        RequestParams(model="sim-reasoner", prompt="Say hello.", max_tokens=400),
    ),
    "responses-tool": (
        "responses",
        RequestParams(
            model="sim-reasoner", prompt="What's the weather in Paris?", tools=[SAMPLE_TOOL]
        ),
    ),
    "messages": (
        "messages",
        RequestParams(model="sim-claude", prompt="Say hello.", thinking_budget=1024),
    ),
    "messages-tool": (
        "messages",
        RequestParams(
            model="sim-claude",
            prompt="What's the weather in Paris?",
            thinking_budget=1024,
            tools=[SAMPLE_TOOL],
        ),
    ),
    "images": (
        "images",
        RequestParams(model="gpt-image-1", prompt="a red fox", size="256x256", partial_images=1),
    ),
    "speech": ("speech", RequestParams(model="tts", input="Hello there.", voice="alloy")),
    "transcription": ("transcription", RequestParams(model="whisper", language="en")),
    "music": ("music", RequestParams(model="sim-music", prompt="calm piano", duration=1.0)),
}


class _Sink:
    def __init__(self) -> None:
        self.status: int | None = None
        self.error: object | None = None

    def on_request(self, *args: object) -> None:
        pass

    def on_response(self, status: int, headers: object, t: float) -> None:
        self.status = status

    def on_chunk(self, t: float, data: bytes) -> None:
        pass

    def on_transport_error(self, error: object, t: float) -> None:
        self.error = error

    def on_end(self, t: float) -> None:
        pass


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One real run per case on a simulator of its own, which is stopped afterwards."""
    from playground.sim.server import SimServer

    root = tmp_path_factory.mktemp("export-runs")
    history = RunHistory(root / "history")
    paths: dict[str, Path] = {}

    async def record(base_url: str) -> None:
        for name, (route, params) in CASES.items():
            files = None
            if route == "transcription":
                files = [("file", ("hello.wav", SAMPLE.read_bytes(), "audio/wav"))]
            spec = make_spec(
                provider_by_id("custom"),
                route,
                build_body(route, replace(params, stream=True)),
                KEY,
                base_url=base_url,
                files=files,
                extra_headers={"X-Sim-Pace": "instant"},
            )
            assert spec is not None
            rec = history.start_run(route, secrets=(KEY,))
            sink = _Sink()
            await stream_request(spec, TeeSink(sink, rec))
            assert sink.error is None and sink.status == 200, (name, sink.status)
            paths[name] = history.capture_path(rec.run_id)

    with SimServer(pace="instant") as server:
        asyncio.run(record(server.base_url))
    return paths


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    """The simulator the snippets reach through $PLAYGROUND_BASE_URL (no X-Sim-Pace: instant)."""
    from playground.sim.server import SimServer

    with SimServer(pace="instant") as server:
        yield server.base_url


@pytest.fixture(scope="session")
def node_modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder whose node_modules has openai and @anthropic-ai/sdk: npm install, once a session.

    CI installs node and npm (scripts/install.sh --test), so there a missing node fails; on a
    developer's machine without node these tests skip and say why.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        message = "node and npm are needed to run the exported Node snippets"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (scripts/install.sh --test installs them)")
        pytest.skip(message + "; `apt-get install nodejs npm` to run these tests")
    major = int(subprocess.run([node, "--version"], capture_output=True, text=True).stdout[1:3])
    # openai 7 wants Node 22; npm 9 (Debian's) would still pick it on Node 18, so ask for 6 there.
    openai = "openai" if major >= 22 else "openai@6"
    root = tmp_path_factory.mktemp("npm")
    (root / "package.json").write_text('{"private": true}\n')
    done = subprocess.run(
        [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            openai,
            "@anthropic-ai/sdk",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return root


def _events(capture: Path) -> list[dict[str, Any]]:
    """The JSON `data:` payloads of the recorded stream, in order."""
    raw = b"".join(data for _, data in read_capture(capture).chunks).decode()
    out = []
    for line in raw.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            out.append(json.loads(line[6:]))
    return out


class _Sections:
    """Streamed text grouped as the snippets print it: a heading each time its kind changes."""

    def __init__(self) -> None:
        self.parts: list[list[str]] = []

    def add(self, kind: str, text: str) -> None:
        if not self.parts or self.parts[-1][0] != kind:
            self.parts.append([kind, ""])
        self.parts[-1][1] += text

    def __str__(self) -> str:
        return "".join(f"[{kind}]\n{text}\n" for kind, text in self.parts)


def _expected(name: str, capture: Path) -> str:
    """What the snippet must print for the recorded run: its text, reasoning and tool calls."""
    events = _events(capture)
    out = _Sections()
    if name.startswith("chat"):
        finish = ""
        names: dict[int, str] = {}
        usage: dict[str, Any] = {}
        for chunk in events:
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                if delta.get("reasoning"):
                    out.add("reasoning", delta["reasoning"])
                if delta.get("content"):
                    out.add("answer", delta["content"])
                for call in delta.get("tool_calls") or []:
                    names[call["index"]] = call.get("function", {}).get("name") or names.get(
                        call["index"], ""
                    )
                    out.add(f"tool call {names[call['index']]}", call["function"]["arguments"])
                finish = choice.get("finish_reason") or finish
            usage = chunk.get("usage") or usage
        return (
            f"{out}finish_reason: {finish}\n"
            f"usage: {usage['prompt_tokens']} in, {usage['completion_tokens']} out\n"
        )
    if name.startswith("responses"):
        calls: dict[str, str] = {}
        for e in events:
            if e["type"] == "response.reasoning_text.delta":
                out.add("reasoning", e["delta"])
            elif e["type"] == "response.output_text.delta":
                out.add("answer", e["delta"])
            elif e["type"] == "response.output_item.added" and e["item"]["type"] == "function_call":
                calls[e["item"]["id"]] = e["item"]["name"]
                out.add(f"tool call {e['item']['name']}", "")
            elif e["type"] == "response.function_call_arguments.delta":
                out.add(f"tool call {calls[e['item_id']]}", e["delta"])
        last = events[-1]["response"]
        usage = last["usage"]
        return (
            f"{out}status: {last['status']}\n"
            f"usage: {usage['input_tokens']} in, {usage['output_tokens']} out\n"
        )
    if name.startswith("messages"):
        blocks: dict[int, str] = {}
        for e in events:
            if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use":
                blocks[e["index"]] = f"tool call {e['content_block']['name']}"
                out.add(blocks[e["index"]], "")
            elif e["type"] == "content_block_delta":
                delta = e["delta"]
                if delta["type"] == "thinking_delta":
                    out.add("thinking", delta["thinking"])
                elif delta["type"] == "text_delta":
                    out.add("answer", delta["text"])
                elif delta["type"] == "input_json_delta":
                    out.add(blocks[e["index"]], delta["partial_json"])
        end = next(e for e in events if e["type"] == "message_delta")
        return (
            f"{out}stop_reason: {end['delta']['stop_reason']}\n"
            f"usage: {end['usage']['output_tokens']} out\n"
        )
    if name == "transcription":
        return "".join(e["delta"] for e in events if e["type"] == "transcript.text.delta") + "\n"
    raise AssertionError(name)


def _snippet(capture: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert export_main([str(capture), "--as", fmt]) == 0
    code = capsys.readouterr().out
    assert KEY not in code and "X-Sim" not in code and "PLAYGROUND_BASE_URL" in code
    return code


def _run(argv: list[str], cwd: Path, sim_url: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env |= {"PLAYGROUND_API_KEY": KEY, "PLAYGROUND_BASE_URL": sim_url}
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _check(name: str, capture: Path, out: str, folder: Path) -> None:
    if name == "images":
        assert out.splitlines() == ["saved partial_0.png", "saved image.png"]
        for file in ("partial_0.png", "image.png"):
            assert (folder / file).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        final = next(e for e in _events(capture) if e["type"] == "image_generation.completed")
        assert (folder / "image.png").read_bytes() == base64.b64decode(final["b64_json"])
    elif name == "speech":
        assert out.splitlines()[-1] == "saved speech.pcm"
        audio = b"".join(
            base64.b64decode(e["audio"])
            for e in _events(capture)
            if e["type"] == "speech.audio.delta"
        )
        assert len(audio) > 1000 and (folder / "speech.pcm").read_bytes() == audio
    elif name == "music":
        assert out.splitlines()[-1] == "saved music.wav"
        assert "completed" in out
        wav = (folder / "music.wav").read_bytes()
        assert wav[:4] == b"RIFF" and wav[8:12] == b"WAVE" and len(wav) > 10_000
    else:
        assert out == _expected(name, capture)
        # And the cases hold what they are for: thinking printed, the tool call with its arguments.
        if name.split("-")[0] in ("chat", "responses", "messages") and name != "chat-text":
            assert out.startswith(("[reasoning]\nThe user is", "[thinking]\nThe user is"))
        if name.endswith("-tool"):
            assert '[tool call get_weather]\n{"city": "Paris"' in out
    # No file the snippet wrote holds the key.
    for path in folder.rglob("*"):
        if path.is_file() and "node_modules" not in path.parts:
            assert KEY.encode() not in path.read_bytes(), path


def _args(name: str) -> list[str]:
    return [str(SAMPLE)] if name == "transcription" else []


@pytest.mark.parametrize("name", list(CASES))
def test_the_python_export_runs_as_written(
    name: str,
    recorded: dict[str, Path],
    sim_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    route = CASES[name][0]
    script = tmp_path / f"{route}.py"
    script.write_text(_snippet(recorded[name], "python", capsys))
    out = _run([sys.executable, str(script), *_args(name)], tmp_path, sim_url)
    _check(name, recorded[name], out, tmp_path)


@pytest.mark.parametrize("name", list(CASES))
def test_the_node_export_runs_as_written(
    name: str,
    recorded: dict[str, Path],
    sim_url: str,
    node_modules: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    route = CASES[name][0]
    folder = node_modules / "runs" / name  # node finds the SDKs in the node_modules above
    folder.mkdir(parents=True)
    script = folder / f"{route}.mjs"
    script.write_text(_snippet(recorded[name], "typescript", capsys))
    out = _run([shutil.which("node") or "node", str(script), *_args(name)], folder, sim_url)
    _check(name, recorded[name], out, folder)


def test_a_transcription_export_without_its_file_says_how_to_run_it(
    recorded: dict[str, Path],
    node_modules: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    script = tmp_path / "transcription.py"
    script.write_text(_snippet(recorded["transcription"], "python", capsys))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("usage: python ") and "AUDIO_FILE  (the run sent hello.wav)" in (
        done.stderr
    )
    folder = node_modules / "runs" / "no-file"
    folder.mkdir(parents=True)
    script = folder / "transcription.mjs"
    script.write_text(_snippet(recorded["transcription"], "typescript", capsys))
    done = subprocess.run(
        [shutil.which("node") or "node", str(script)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr == "usage: node transcription.mjs AUDIO_FILE  (the run sent hello.wav)\n"


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return b"data: " + json.dumps(chunk | {"choices": [choice]} | extra).encode() + b"\n\n"


# A gateway that streams its reasoning as delta.reasoning_content (DeepSeek's name for it).
REASONING_CONTENT = (
    _chunk({"role": "assistant", "reasoning_content": "Let me "})
    + _chunk({"reasoning_content": "think."})
    + _chunk({"content": "Hi"})
    + _chunk({"content": " there."})
    + _chunk({}, "stop", usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7})
    + b"data: [DONE]\n\n"
)


@pytest.fixture(scope="module")
def reasoning_content_gateway() -> Iterator[str]:
    """A loopback server answering every POST with REASONING_CONTENT."""
    import http.server
    import threading

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(REASONING_CONTENT)))
            self.end_headers()
            self.wfile.write(REASONING_CONTENT)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("fmt", ["python", "typescript"])
def test_reasoning_content_prints_as_it_streams(
    fmt: str,
    reasoning_content_gateway: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    from playground.runs.export import export_request

    run = {
        "method": "POST",
        "url": reasoning_content_gateway + "/chat/completions",
        "headers": {"Authorization": "Bearer [redacted]"},
        "body": build_body("chat", RequestParams(model="m", prompt="Hi?")),
    }
    code = export_request(run, "chat", fmt)
    if fmt == "python":
        folder = tmp_path
        argv = [sys.executable, str(folder / "chat.py")]
    else:
        folder = request.getfixturevalue("node_modules") / "runs" / "reasoning-content"
        folder.mkdir(parents=True)
        argv = [shutil.which("node") or "node", str(folder / "chat.mjs")]
    Path(argv[1]).write_text(code)
    out = _run(argv, folder, reasoning_content_gateway)
    assert out == (
        "[reasoning]\nLet me think.\n[answer]\nHi there.\nfinish_reason: stop\nusage: 3 in, 4 out\n"
    )
