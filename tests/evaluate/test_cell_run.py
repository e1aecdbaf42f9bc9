"""A cell's request: a key the server echoes is in no capture, answer or error of the cell."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from playground.evaluate.runner import Runner
from playground.evaluate.suite import Suite
from playground.sim.server import SimServer
from tests.evaluate.conftest import cell, suite_of

KEY = "sk-eval-secret-0123456789"


async def _echo(request: Request) -> Response:
    said = request.headers.get("authorization", "")
    body = await request.json()
    if "fail" in json.dumps(body):
        return JSONResponse({"error": {"message": f"bad key {said}", "type": "auth"}}, 401)

    async def events() -> AsyncIterator[bytes]:
        chunk = {
            "id": "x",
            "object": "chat.completion.chunk",
            "choices": [
                {"index": 0, "delta": {"content": f"you sent {said}"}, "finish_reason": None}
            ],
        }
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        done = chunk | {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        yield f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()

    return StreamingResponse(events(), media_type="text/event-stream")


def test_an_echoed_key_is_scrubbed_from_the_cell(tmp_path: Path) -> None:
    app = Starlette(routes=[Route("/v1/chat/completions", _echo, methods=["POST"])])
    suite = suite_of(
        variants=[
            {
                "name": "A",
                "route": "chat",
                "model": "m",
                "prompt": "{{topic}}",
                "provider": "openai",
            }
        ],
        cases=[{"id": "ok", "vars": {"topic": "hi"}}, {"id": "bad", "vars": {"topic": "fail"}}],
        checks=[{"type": "contains", "value": "you sent"}],
    )
    with SimServer(app=app) as echo:
        runner = _run(suite, echo.base_url, tmp_path)
    ok, bad = cell(runner, "ok", "A"), cell(runner, "bad", "A")
    assert ok.passed and "[redacted]" in ok.output and KEY not in ok.output
    assert bad.status == "failed" and bad.error and KEY not in bad.error
    for found in (ok, bad):
        assert KEY not in Path(found.capture or "").read_text(encoding="utf-8")


def _run(suite: Suite, base_url: str, folder: Path) -> Runner:
    """The suite against the echoing server as the OpenAI provider, with a key."""
    runner = Runner(suite, base_urls={"openai": base_url}, capture_dir=folder, keys={"openai": KEY})
    asyncio.run(runner.run())
    return runner
