"""The simulator's ASGI app and a uvicorn server that runs it in a background thread on loopback."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
from types import TracebackType

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from playground.sim.faults import DropConnection
from playground.sim.prompt_cache import DEFAULT_MIN_TOKENS, DEFAULT_TTL, PromptCache
from playground.sim.routes import (
    audio,
    chat,
    counting,
    image_edits,
    images,
    messages,
    models,
    music,
    responses,
)


async def _not_found(request: Request, exc: Exception) -> Response:
    body = {
        "error": {
            "code": 404,
            "message": f"No route {request.url.path} in the simulator",
            "type": "not_found_error",
            "param": None,
        }
    }
    return JSONResponse(body, status_code=404)


def create_app(
    *,
    pace: str | None = None,
    fault: str | None = None,
    cache_ttl: float | None = None,
    cache_min_tokens: int | None = None,
) -> Starlette:
    """The simulator as an ASGI app: every route under /v1 (and the same without the prefix).

    `pace` and `fault` are server-wide defaults for requests that send no X-Sim-Pace/X-Sim-Fault;
    `cache_ttl` and `cache_min_tokens` the prompt cache's lifetime and minimum (prompt_cache.py).
    """
    table = [
        ("/models", models.handle, ["GET"]),
        ("/chat/completions", chat.handle, ["POST"]),
        ("/responses", responses.handle, ["POST"]),
        ("/responses/input_tokens", counting.handle_responses, ["POST"]),
        ("/messages", messages.handle, ["POST"]),
        ("/messages/count_tokens", counting.handle_messages, ["POST"]),
        ("/images", images.handle, ["POST"]),
        ("/images/generations", images.handle, ["POST"]),
        ("/images/edits", image_edits.handle, ["POST"]),
        ("/audio/speech", audio.handle_speech, ["POST"]),
        ("/audio/transcriptions", audio.handle_transcription, ["POST"]),
        ("/music", music.handle_create, ["POST"]),
        ("/music/{job_id}", music.handle_status, ["GET"]),
        ("/music/{job_id}/stream", music.handle_stream, ["GET"]),
        ("/music/{job_id}/audio", music.handle_audio, ["GET"]),
    ]
    routes = [Route("/v1" + path, fn, methods=m) for path, fn, m in table]
    routes += [Route(path, fn, methods=m) for path, fn, m in table]
    app = Starlette(routes=routes, exception_handlers={404: _not_found})
    app.state.music_jobs = {}
    app.state.default_pace = pace
    app.state.default_fault = fault
    app.state.prompt_cache = PromptCache(
        DEFAULT_TTL if cache_ttl is None else cache_ttl,
        DEFAULT_MIN_TOKENS if cache_min_tokens is None else cache_min_tokens,
    )
    return app


class _QuietDrops(logging.Filter):
    """Deliberate endings are not errors: the "drop" fault, and streams cancelled by stop()."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Cancel ") and "graceful shutdown" in record.getMessage():
            return False
        exc = record.exc_info[1] if record.exc_info else None
        while exc is not None:
            if isinstance(exc, DropConnection | asyncio.CancelledError):
                return False
            if isinstance(exc, BaseExceptionGroup) and any(
                isinstance(e, DropConnection) for e in exc.exceptions
            ):
                return False
            exc = exc.__cause__ or exc.__context__
        return True


logging.getLogger("uvicorn.error").addFilter(_QuietDrops())


class SimServer:
    """Runs the simulator with uvicorn in a daemon thread; `start()` returns once it listens."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        pace: str | None = None,
        fault: str | None = None,
        app: Starlette | None = None,
        cache_ttl: float | None = None,
        cache_min_tokens: int | None = None,
    ) -> None:
        self.app = app  # another app to serve (`sim --replay`); the simulator's own by default
        self.host = host
        self.port = port
        self.pace = pace  # defaults for requests without X-Sim-Pace / X-Sim-Fault
        self.fault = fault
        self.cache_ttl = cache_ttl  # the prompt cache's lifetime and minimum (prompt_cache.py)
        self.cache_min_tokens = cache_min_tokens
        self.base_url = ""
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._sock: socket.socket | None = None

    def start(self) -> SimServer:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))  # port 0: the OS picks a free one
        sock.listen(128)
        sock.setblocking(False)
        self._sock = sock
        self.port = sock.getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.base_url = f"http://{host}:{self.port}/v1"
        config = uvicorn.Config(
            self.app
            if self.app is not None
            else create_app(
                pace=self.pace,
                fault=self.fault,
                cache_ttl=self.cache_ttl,
                cache_min_tokens=self.cache_min_tokens,
            ),
            log_level="warning",
            access_log=False,
            lifespan="off",
            # C framing of each chunk: under h11 the simulator's own CPU per event was what
            # limited a client at full speed (pyproject.toml says the measured figures).
            http="httptools",
            # Streams still open at stop() are cut after 0.25 s (uvicorn accepts a float here).
            timeout_graceful_shutdown=0.25,  # type: ignore[arg-type]
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="playground-sim", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the simulator did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout=2)
        if self._sock is not None:
            self._sock.close()
        self._server = self._thread = self._sock = None

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
