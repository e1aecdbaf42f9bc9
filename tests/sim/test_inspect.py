"""`playground inspect` reads what the simulator sent (saved as by `curl -N`): no findings."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from .conftest import INSTANT
from .decoder_cases import EXTRAS
from .helpers import BODIES

inspect = pytest.importorskip("playground.cli.inspect")

ROUTE = {
    "/chat/completions": "chat",
    "/responses": "responses",
    "/messages": "messages",
    "/images/generations": "images",
    "/audio/speech": "speech",
}


@pytest.mark.parametrize("path", list(ROUTE))
def test_inspect_reads_simulated_streams_with_no_findings(
    base_url: str, path: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    raw = httpx.post(base_url + path, json=BODIES[path] | EXTRAS[path], headers=INSTANT).content
    file = tmp_path / "run.sse"
    file.write_bytes(raw)
    assert inspect.main([str(file), "--json", "--chunk-size", "7"]) == 0
    out = json.loads(capsysbinary.readouterr().out)
    assert out["route"] == ROUTE[path]
    assert out["status"] == "complete"
    assert out["findings"] == []
