"""`sim --replay`: one recorded answer served to any request on its route, with its timing.

The status, headers and body reads of the capture go out as they were recorded, each read at
its recorded time after the request arrived (divided by ``speed``; 0 sends them as fast as the
socket takes them). Headers that belonged to the recorded connection (hop-by-hop, the length of a
body a fault may change, the recorded Date and Server) are left for this server to write.
``X-Sim-Fault`` on a request, or the server-wide default, applies a fault (replay_faults.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from playground.sim.context import new_id
from playground.sim.fault_names import REPLAY_FAULTS
from playground.sim.faults import DropConnection, error_response
from playground.sim.recording import Recording
from playground.sim.replay_faults import DROP, STALL, Piece, plan_body

__all__ = ["ROUTE_PATHS", "create_replay_app", "load_replay", "replay_paths"]

# Where each route is asked for, below /v1 (the gateway's pages; the simulator's own table).
ROUTE_PATHS: dict[str, tuple[str, ...]] = {
    "chat": ("/chat/completions",),
    "responses": ("/responses",),
    "messages": ("/messages",),
    "images": ("/images/generations", "/images"),
    "speech": ("/audio/speech",),
    "transcription": ("/audio/transcriptions",),
    "music": ("/music",),
}
_NOT_REPLAYED = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "content-length",
        "date",
        "server",
        "te",
        "trailer",
        "upgrade",
    }
)
_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


def replay_paths(rec: Recording) -> tuple[str, ...]:
    """The paths below /v1 the recording answers: its route's, else the one it was recorded on."""
    paths = ROUTE_PATHS.get(rec.route or "", ())
    if rec.path and rec.path not in paths:
        paths = (*paths, rec.path)
    return paths or ("/chat/completions",)


def _fault_of(request: Request, default: str) -> str:
    raw = request.headers.get("x-sim-fault")
    if raw is None:
        return default
    name = raw.strip().lower()
    return name if name in REPLAY_FAULTS else "none"


async def _body(
    pieces: list[Piece], start: float, speed: float, stall: float
) -> AsyncIterator[bytes]:
    for piece in pieces:
        if speed > 0:
            wait = start + piece.t / speed - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        if piece.marker == DROP:
            raise DropConnection
        if piece.marker == STALL:
            await asyncio.sleep(stall)
            continue
        yield piece.data


def create_replay_app(rec: Recording, *, speed: float = 1.0, fault: str = "none") -> Starlette:
    """The ASGI app serving ``rec`` on its route's paths (with and without /v1), any method."""

    async def serve(request: Request) -> Response:
        start = time.monotonic()
        await request.body()  # read the upload (transcription) as a server would
        chosen = _fault_of(request, fault)
        early = error_response(
            chosen, anthropic=rec.route == "messages", generation_id=new_id("gen-")
        )
        if early is not None:
            return early
        try:
            stall = max(0.0, min(float(request.headers.get("x-sim-stall-seconds", "3")), 600.0))
        except ValueError:
            stall = 3.0
        if speed > 0 and rec.response_at > 0:
            await asyncio.sleep(rec.response_at / speed)
        pieces = plan_body(rec.chunks, chosen, rec.route)
        response = StreamingResponse(_body(pieces, start, speed, stall), status_code=rec.status)
        response.raw_headers = [
            (name.lower().encode("latin-1"), value.encode("latin-1", "replace"))
            for name, value in rec.headers
            if name.lower() not in _NOT_REPLAYED
        ]
        return response

    async def not_found(request: Request, exc: Exception) -> Response:
        paths = ", ".join("/v1" + p for p in replay_paths(rec))
        body = {
            "error": {
                "code": 404,
                "message": f"This replay answers {paths} only, not {request.url.path}",
                "type": "not_found_error",
                "param": None,
            }
        }
        return JSONResponse(body, status_code=404)

    routes = []
    for path in replay_paths(rec):
        routes.append(Route("/v1" + path, serve, methods=_METHODS))
        routes.append(Route(path, serve, methods=_METHODS))
    return Starlette(routes=routes, exception_handlers={404: not_found, 405: not_found})


def load_replay(path: str, speed: float, fault: str) -> tuple[Starlette | None, str | None]:
    """The replay app for the command line, or the one-line reason it cannot be served."""
    from playground.sim.recording import RecordingError, read_recording

    if speed < 0:
        return None, "--speed must be 0 or more"
    if fault not in REPLAY_FAULTS:
        usable = ", ".join(REPLAY_FAULTS)
        return None, f"--fault {fault} does not apply to a replay (these do: {usable})"
    try:
        rec = read_recording(path)
    except RecordingError as exc:
        return None, str(exc)
    return create_replay_app(rec, speed=speed, fault=fault), None
