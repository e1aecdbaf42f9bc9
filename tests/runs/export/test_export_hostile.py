"""Exported code is built from literals: a capture's values, however hostile, parse as data in
every target (Python, Node, curl), reach a recording server on loopback exactly as they were,
and run nothing (a planted payload that would create a marker file never creates it).
"""

from __future__ import annotations

import ast
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from email.parser import BytesParser
from email.policy import HTTP
from pathlib import Path
from typing import Any

import pytest
from test_export_runs import node_modules  # noqa: F401  (the session's npm-installed SDKs)

from playground.runs.export import ExportError, export_request

pytestmark = pytest.mark.slow

ROUTE_PATHS = {
    "chat": "/chat/completions",
    "responses": "/responses",
    "messages": "/messages",
    "images": "/images/generations",
    "speech": "/audio/speech",
    "transcription": "/audio/transcriptions",
    "music": "/music",
}
MARK = "{mark}"  # replaced by the marker file's path in each test's folder

# Each value would run code in some language if a target pasted it into code or a shell line.
HOSTILE: dict[str, str] = {
    "quotes": "it's \"quoted\" '''triple''' \"\"\"",
    "python-fstring": '{__import__("os").system("touch ' + MARK + '")}',
    "backtick": "`touch " + MARK + "`",
    "js-template": "${(await import('node:fs')).writeFileSync('" + MARK + "', '')}",
    "shell-subst": "$(touch " + MARK + ")",
    "close-and-run": "'); import os; os.system('touch " + MARK + "'); ('",
    "js-close-and-run": "\"); require('fs').writeFileSync('" + MARK + "', ''); (\"",
    "newline": "a\nimport os; os.system('touch " + MARK + "')\n# b",
    "line-separator": "a\u2028process.exit(7)\u2029b",
    "backslash": "\\'; touch " + MARK + "; echo '\\",
    "nul": "a\x00b",
    "non-ascii": "héllo 漢字 😀 \U0001f600",
    "long": "x" * 100_000 + "'\"`${$(",
}
# Values an HTTP header can carry as they are (visible ASCII): the others are left out. (The
# long one is too: servers refuse a header line past 64 KB, ours included.)
HEADER_SAFE = {
    n: v for n, v in HOSTILE.items() if all(" " <= c <= "~" for c in v) and len(v) < 8000
}


def _values(mark: Path) -> dict[str, str]:
    return {name: value.replace(MARK, str(mark)) for name, value in HOSTILE.items()}


class _Recorder(http.server.ThreadingHTTPServer):
    requests: list[tuple[str, str, dict[str, str], bytes]]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Recorder

    def _answer(self) -> None:
        body = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.server.requests.append((self.command, self.path, headers, body))
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        answer = {
            "id": "x",
            "object": "x",
            "choices": [],
            "output": [],
            "content": [],
            "data": [],
            "text": "",
            "status": "completed",
            "audio_url": base + "/audio.wav",
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":  # Node's uploads
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b""
        while size := int(self.rfile.readline().split(b";")[0], 16):
            body += self.rfile.read(size)
            self.rfile.readline()
        self.rfile.readline()
        return body

    do_POST = do_GET = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def recorder() -> Iterator[_Recorder]:
    server = _Recorder(("127.0.0.1", 0), _Handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _base(server: _Recorder) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


def _combined(route: str, values: dict[str, str], base: str) -> dict[str, Any]:
    """One request whose every multi-valued slot holds every hostile value: the route's own
    string parameters, extra body fields (hostile values as their values and as their names),
    a nested value, and headers."""
    body: dict[str, Any] = {"model": values["quotes"]}
    if route in ("chat", "messages"):
        body["messages"] = [{"role": "user", "content": values["python-fstring"]}]
    elif route == "speech":
        body |= {"input": values["backtick"], "voice": values["js-template"]}
    elif route != "transcription":
        body["prompt" if route in ("images", "music") else "input"] = values["backtick"]
    if route == "messages":
        body["max_tokens"] = 5
    for index, (name, value) in enumerate(values.items()):
        if route == "transcription":
            body[f"hostile_{index}"] = value
            continue
        body[f"hostile_{index}"] = value
        body[value[:200]] = index
        body[f"nested_{index}"] = {"list": [value, {name: value}]}
    body["__proto__"] = {"polluted": values["js-template"]}
    if route == "transcription":
        body["file"] = "@$(touch MARK) (12 bytes)"  # relative: the snippets run in the folder
        del body["__proto__"]
    headers = {"Authorization": "Bearer [redacted]"}
    headers |= {f"X-Hostile-{i}": values[name] for i, name in enumerate(HEADER_SAFE)}
    headers |= {"X-Dropped": values["newline"], "X-Nul": values["nul"]}
    return {"method": "POST", "url": base + ROUTE_PATHS[route], "headers": headers, "body": body}


def _parse_check(code: str, fmt: str, folder: Path) -> None:
    """The snippet is valid code in its language (bash -n, node --check, ast.parse)."""
    if fmt == "python":
        ast.parse(code)
        return
    script = folder / ("check.mjs" if fmt == "typescript" else "check.sh")
    script.write_text(code, encoding="utf-8")
    argv = ["node", "--check", str(script)] if fmt == "typescript" else ["bash", "-n", str(script)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def _run(
    code: str, fmt: str, folder: Path, env_base: str | None, args: list[str]
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env["PLAYGROUND_API_KEY"] = "sk-hostile-test"
    if env_base is not None:
        env["PLAYGROUND_BASE_URL"] = env_base
    name = {"python": "snippet.py", "typescript": "snippet.mjs", "curl": "snippet.sh"}[fmt]
    script = folder / name
    script.write_text(code, encoding="utf-8")
    argv = {
        "python": [sys.executable, str(script)],
        "typescript": [shutil.which("node") or "node", str(script)],
        "curl": ["bash", str(script)],
    }[fmt]
    return subprocess.run(
        argv + args, cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def _folder(fmt: str, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    if fmt != "typescript":
        return tmp_path
    if shutil.which("node") is None:
        pytest.skip("node is needed to run the Node snippets")
    root: Path = request.getfixturevalue("node_modules")
    folder = root / "hostile" / tmp_path.name  # node finds the SDKs in the node_modules above
    folder.mkdir(parents=True)
    return folder


def _form(headers: dict[str, str], body: bytes) -> dict[str, str]:
    content_type = headers["content-type"]
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, str] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if part.get_filename() is None:
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            fields[str(name)] = payload.decode("utf-8")
    return fields


FORMATS = ["python", "typescript", "curl"]


@pytest.mark.parametrize("route", list(ROUTE_PATHS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_hostile_value_is_sent_as_it_was_and_runs_nothing(
    fmt: str, route: str, recorder: _Recorder, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    folder = _folder(fmt, tmp_path, request)
    mark = folder / "MARK"
    values = _values(mark)
    run = _combined(route, values, _base(recorder))
    if fmt == "curl" and route == "transcription":
        # No curl argument can hold NUL: that export is refused rather than cut at the NUL.
        with pytest.raises(ExportError, match="NUL"):
            export_request(run, route, fmt)
        del run["body"][f"hostile_{list(HOSTILE).index('nul')}"]
    code = export_request(run, route, fmt)
    _parse_check(code, fmt, folder)
    args = []
    if route == "transcription":
        audio = folder / "$(touch MARK)"
        audio.write_bytes(b"RIFF....WAVE")
        (folder / "audio.wav").write_bytes(b"RIFF....WAVE")
        args = [str(audio)] if fmt != "curl" else []
    done = _run(code, fmt, folder, _base(recorder), args)
    assert not mark.exists(), "a value from the capture ran as code"
    sent = [r for r in recorder.requests if r[1] == "/v1" + ROUTE_PATHS[route]]
    assert sent, done.stderr[-3000:]
    method, _, headers, payload = sent[0]
    assert method == "POST"
    for index, value in enumerate(HEADER_SAFE.values()):
        assert headers[f"x-hostile-{index}"] == value.replace(MARK, str(mark))
    assert "x-dropped" not in headers and "x-nul" not in headers
    expected = {k: v for k, v in run["body"].items() if k != "file"}
    if route == "transcription":
        form = _form(headers, payload)
        for key, value in expected.items():
            assert form.get(key) == value, (key, sorted(form), payload[:600])
    else:
        got = json.loads(payload)
        if fmt == "python" and route == "music":
            pass  # httpx sends the dict as written
        assert got == expected


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_file_names_formats_urls_and_methods_run_nothing(
    fmt: str, name: str, recorder: _Recorder, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The values that become part of a file name, the URL (here with no $PLAYGROUND_BASE_URL,
    so the capture's own URL is used) or curl's method, one hostile value at a time."""
    folder = _folder(fmt, tmp_path, request)
    mark = folder / "MARK"
    value = _values(mark)[name]
    base = _base(recorder)
    (folder / "audio.wav").write_bytes(b"RIFF....WAVE")
    runs = {
        "images": {"model": "m", "prompt": "p", "output_format": value},
        "speech": {"model": "m", "input": "i", "voice": "v", "response_format": value},
        "transcription": {"model": "m", "file": f"@{value} (3 bytes)"},
    }
    with pytest.raises(ExportError, match="not an HTTP method"):  # a method is a token
        export_request({"method": value, "url": base + "/music", "body": {}}, "music", fmt)
    for route, body in runs.items():
        for stream in (False, True):
            run = {
                "url": base + ("/" + value if route == "speech" else "") + ROUTE_PATHS[route],
                "headers": {},
                "body": body | ({"stream": True} if stream else {}),
            }
            code = export_request(run, route, fmt)
            _parse_check(code, fmt, folder)
            if not stream:
                args = [str(folder / "audio.wav")] if route == "transcription" else []
                _run(code, fmt, folder, None, args)
    assert not mark.exists(), "a value from the capture ran as code"
    # The format values reached the server unchanged in the body they belong to.
    bodies = [json.loads(r[3]) for r in recorder.requests if r[1].endswith("/images/generations")]
    assert bodies and bodies[0]["output_format"] == value
    # Every file the snippets wrote is in their folder, with a plain extension.
    for path in folder.iterdir():
        assert (
            path.name in ("MARK",)
            or not path.name.startswith(("image", "speech"))
            or (path.suffix in (".png", ".mp3"))
        ), path.name


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_comment_line_cannot_be_ended_by_the_capture(fmt: str, tmp_path: Path) -> None:
    """The base URL is quoted in the header comment: a newline or U+2028 in it stays escaped."""
    for breaker in ("\n", "\r", "\u2028", "\u2029", "\x85", "\x0c"):
        planted = f"{breaker}process.exit(3); import os{breaker}"
        run = {
            "method": "POST",
            "url": f"http://127.0.0.1:9/v1{planted}/chat/completions",
            "headers": {},
            "body": {"model": "m", "messages": []},
        }
        code = export_request(run, "chat", fmt)
        _parse_check(code, fmt, tmp_path)
        comment = "#" if fmt == "python" else "//"
        if fmt != "curl":
            header = code.split("\n\n", 1)[0]
            assert all(line.startswith(comment) for line in header.splitlines())
            assert breaker == "\n" or breaker not in header
