"""The proxy scrubs what it keeps like the window does: credential headers by rule, query keys,
and the client's key echoed by the upstream in headers or in a body cut across reads."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from playground.protocol.capture import read_capture

from .conftest import Proxy, start_proxy
from .upstream import ScriptedUpstream

KEY = "sk-gateway-token-8c1d2e3f4a5b"
SUB_KEY = "ocp-subscription-1f2e3d4c5b6a"
STREAM_BEFORE_KEY = len('data: {"echo": "')


@pytest.fixture
def saving(tmp_path: Path) -> Iterator[tuple[Proxy, Path]]:
    with ScriptedUpstream() as upstream:
        proxy = start_proxy(upstream.base_url, tmp_path)
        try:
            yield proxy, tmp_path
        finally:
            proxy.server.stop()


def test_no_key_in_any_saved_file_or_line_whatever_the_reads(
    saving: tuple[Proxy, Path],
) -> None:
    proxy, folder = saving
    cuts = range(STREAM_BEFORE_KEY - 1, STREAM_BEFORE_KEY + len(KEY) + 2)
    for n, cut in enumerate(cuts, start=1):
        got = httpx.get(
            proxy.base_url + "/echo-key",
            params={"api_key": KEY, "n": "1"},
            headers={
                "X-Auth-Token": KEY,
                "Ocp-Apim-Subscription-Key": SUB_KEY,
                "X-Split": str(cut),
            },
        )
        assert KEY in got.text and got.headers["x-echo"] == KEY  # the client gets its bytes
        proxy.lines(count=n)
    lines = proxy.lines(count=len(cuts))
    assert len(lines) == len(cuts)
    for line in lines:
        assert KEY not in json.dumps(line) and "api_key=[redacted]" in str(line["path"])
    for ex in proxy.ended.exchanges:
        shown = json.dumps([ex.request_headers, ex.response_headers, ex.url, ex.path])
        assert KEY not in shown and SUB_KEY not in shown
    files = [p for p in folder.iterdir() if p.name.endswith(".capture.jsonl")]
    assert len(files) == len(cuts)
    for path in files:
        data = path.read_bytes()
        assert KEY.encode() not in data and SUB_KEY.encode() not in data, path.name
        capture = read_capture(path, strict=True)
        assert capture.body == b'data: {"echo": "[redacted]"}\n\ndata: [DONE]\n\n'
        assert capture.request is not None
        headers = {k.lower(): v for k, v in capture.request["headers"].items()}
        assert headers["x-auth-token"] == headers["ocp-apim-subscription-key"] == "[redacted]"
        response = {k.lower(): v for k, v in capture.header_pairs}
        assert response["set-cookie"] == "[redacted]" and response["x-echo"] == "[redacted]"
