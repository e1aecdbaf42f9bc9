"""Exports: curl, Python and TypeScript from a captured run; the key and base URL are env var
references, no X-Sim-* header is copied, and the curl command is what was sent. (Running every
snippet for real: test_export_runs.py.)"""

from __future__ import annotations

import asyncio
import json
import math
import re
import shlex
import shutil
import struct
import subprocess
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
    # Instant: the exports carry no X-Sim-Pace, so the server's default decides the pace.
    server = server_mod.SimServer(pace="instant").start()
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
            assert spec is not None
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
    url = "${PLAYGROUND_BASE_URL:-https://api.openai.com/v1}/chat/completions"
    assert args[:5] == ["curl", "-N", "-X", "POST", url]
    assert json.loads(args[args.index("--data-raw") + 1]) == req["body"]
    # The simulator's own headers never leave the program; the SDK/curl set Accept themselves.
    assert "X-Sim" not in text and "Accept: text/event-stream" not in args


def test_exports_drop_simulator_headers_and_say_where_the_url_comes_from() -> None:
    req = _request(
        "chat",
        "http://127.0.0.1:41234/v1/chat/completions",
        {"X-Sim-Pace": "instant", "x-sim-fault": "drop", "X-Trace": "abc"},
    )
    for fmt in ("curl", "python", "typescript"):
        code = export_request(req, "chat", fmt)
        assert "sim-pace" not in code.lower() and "sim-fault" not in code.lower()
        assert "X-Trace" in code and "PLAYGROUND_BASE_URL" in code
        assert "http://127.0.0.1:41234/v1" in code  # the run's URL is the default
    python, node = to_python(req, "chat"), to_typescript(req, "chat")
    for code in (python, node):
        assert "built-in simulator" in code and "playground sim" in code
    assert 'os.environ.get("PLAYGROUND_BASE_URL") or' in python
    assert "process.env.PLAYGROUND_BASE_URL ||" in node
    assert "node chat.mjs" in node and "npm install openai" in node
    assert "python chat.py" in python and "pip install openai" in python
    real = _request("chat", "https://api.openai.com/v1/chat/completions", {"Authorization": "x"})
    assert "built-in simulator" not in to_python(real, "chat")


def test_anthropic_and_gateway_env_vars() -> None:
    anth = _request(
        "messages",
        "https://api.anthropic.com/v1/messages",
        {"x-api-key": "[redacted]", "anthropic-version": "2023-06-01"},
    )
    curl = to_curl(anth, "messages")
    assert '"x-api-key: $ANTHROPIC_API_KEY"' in curl and "anthropic-version: 2023-06-01" in curl
    py = to_python(anth, "messages")
    assert "or 'https://api.anthropic.com/v1'" in py
    assert 'anthropic.Anthropic(base_url=BASE_URL.removesuffix("/v1")' in py
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
    assert "or 'https://openrouter.ai/api/v1'" in to_python(orr, "chat")


@pytest.mark.parametrize("route", ROUTE_NAMES)
@pytest.mark.parametrize("stream", [True, False])
def test_every_route_exports_valid_python_without_the_key(
    route: str, stream: bool, tmp_path: Path
) -> None:
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
    if route == "transcription":  # the file is the script's argument, named in its usage line
        assert "AUDIO_FILE  (the run sent " in code and "+ 'clip.mp3' +" in code
        assert "open(sys.argv[1]" in code
        node = to_typescript(req, route)
        assert "fs.createReadStream(audioFile)" in node and '(the run sent " + "clip.mp3"' in node
    if shutil.which("node"):  # the Node snippet is valid JavaScript (runs: test_export_runs.py)
        node_file = tmp_path / f"{route}.mjs"
        node_file.write_text(to_typescript(req, route))
        check = subprocess.run(["node", "--check", str(node_file)], capture_output=True, text=True)
        assert check.returncode == 0, check.stderr


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
    assert "PLAYGROUND_API_KEY" in out and KEY not in out and "X-Sim-Pace" not in out


def _replay_curl(command: str, env: dict[str, str]) -> tuple[str, str, dict[str, str], Any]:
    """Read a curl command line back into (method, url, headers, body or form) as curl would."""
    args = shlex.split(command.replace("\\\n", " "))
    assert args[:2] == ["curl", "-N"]
    method = args[3]
    # "${PLAYGROUND_BASE_URL:-default}/path", as the shell expands it
    url = re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m[1]) or m[2], args[4])
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
        elif flag == "--data-raw":
            data = value
        elif flag in ("-F", "--form-string"):
            key, _, val = value.partition("=")
            form[key] = val
        else:
            raise AssertionError(flag)
    return method, url, headers, data if data is not None else form


@pytest.mark.parametrize("route", ["chat", "messages", "transcription"])
def test_exported_curl_is_what_was_sent(
    captures: dict[str, Path],
    sim: str,
    route: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import httpx

    assert export_main([str(captures[route]), "--as", "curl"]) == 0
    command = capsys.readouterr().out
    env = {"PLAYGROUND_API_KEY": KEY, "PLAYGROUND_BASE_URL": sim}
    method, url, headers, payload = _replay_curl(command, env)
    assert url == sim + {"chat": "/chat/completions", "messages": "/messages"}.get(
        route, "/audio/transcriptions"
    )
    assert headers["Authorization"] == f"Bearer {KEY}" and "X-Sim-Pace" not in headers
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
