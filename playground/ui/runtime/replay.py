"""Replay a capture into a RunSink with its recorded timing: scaled, pausable, seekable (asyncio).

The byte source is the only difference between a live run and a replay (docs/design.md "a run"): the
session hands ``replay_capture`` the same sink the transport would get, and the decoder, widgets
and inspector cannot tell the two apart.

Clock: ``position`` is capture time (seconds since the request was sent in the recording). While
playing at speed ``s`` it advances ``s`` capture-seconds per wall-second from an anchor that is
re-set whenever the speed, the pause state or the position changes, so changing speed mid-run
never jumps. Speed 0 is instant.

Seeking forward feeds every chunk up to the target at once, then plays on from there. Seeking
backward cannot un-feed a decoder, so it restarts the run: the control calls ``on_restart(t)``
when the owner set it (the session restarts the replay with ``start_at=t``), and otherwise just
records ``restart_to`` for the owner to act on (the replay bar does: ``session.start_replay`` again,
then ``seek(t)`` forward).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from playground.transport.pipeline import RunSink

__all__ = ["ReplayControl", "capture_end", "capture_times", "replay_capture"]

# While feeding a backlog instantly, hand the loop back this often so Qt paints and input flows.
_YIELD_EVERY_S: Final = 0.008


class ReplayControl:
    """Speed, pause and seek for one replay; read ``position``/``duration`` for a scrubber."""

    def __init__(self, speed: float = 1.0, *, start_at: float = 0.0) -> None:
        self._speed = max(float(speed), 0.0)
        self.paused = False
        self.duration = 0.0
        self.start_at = max(float(start_at), 0.0)  # feed everything before this instantly
        self.finished = False
        self.capture: Any = None  # set by replay_capture: what a backward seek replays again
        self.on_restart: Callable[[float], None] | None = None
        self.restart_to: float | None = None  # a backward seek nobody has acted on yet
        self.on_progress: Callable[[float], None] | None = None  # called after each fed chunk
        self._fed = 0.0  # capture time of the last thing fed
        self._target = self.start_at  # feed instantly up to here
        self._anchor_pos = self.start_at
        self._anchor_wall = time.monotonic()
        self._wake: asyncio.Event | None = None

    # ---- what the UI reads -----------------------------------------------------------------
    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, value: float) -> None:
        self._reanchor()
        self._speed = max(float(value), 0.0)
        self._notify()

    @property
    def position(self) -> float:
        """Where the replay is, in capture seconds (the scrubber's value)."""
        if self.finished:
            return self.duration
        pos = max(self._fed, self._target, self._virtual())
        return min(pos, self.duration) if self.duration > 0 else pos

    # ---- what the UI does --------------------------------------------------------------------
    def pause(self) -> None:
        if not self.paused:
            self._reanchor()
            self.paused = True
            self._notify()

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            self._anchor_wall = time.monotonic()
            self._notify()

    def seek(self, t: float) -> None:
        """Jump to capture time ``t``: forward feeds the gap at once; backward restarts the run."""
        t = max(0.0, float(t))
        if self.duration > 0:
            t = min(t, self.duration)
        if t + 1e-9 < self._fed:
            self.restart_to = t
            if self.on_restart is not None:
                self.on_restart(t)
            return
        self._target = max(self._target, t)
        self._anchor_pos = t
        self._anchor_wall = time.monotonic()
        self._notify()

    # ---- used by replay_capture -------------------------------------------------------------
    def _reanchor(self) -> None:
        pos = self.position
        self._anchor_pos = pos
        self._anchor_wall = time.monotonic()

    def _notify(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _virtual(self) -> float:
        """The clock: capture time now, had nothing been fed faster or slower than scheduled."""
        if self.paused or self._speed <= 0:
            return self._anchor_pos
        return self._anchor_pos + (time.monotonic() - self._anchor_wall) * self._speed

    async def _until(self, t: float) -> None:
        """Return when capture time ``t`` is due: at once if seeked past or instant, never while
        paused (an explicit seek still feeds up to its target, so a paused scrubber shows it)."""
        if self._wake is None:
            self._wake = asyncio.Event()
        while True:
            if t <= self._target:
                return
            timeout: float | None = None
            if not self.paused:
                if self._speed <= 0:
                    return
                timeout = (t - self._virtual()) / self._speed
                if timeout <= 0:
                    return
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                pass

    def _fed_to(self, t: float) -> None:
        self._fed = max(self._fed, t)
        if self.on_progress is not None:
            self.on_progress(t)


def _body_bytes(body: object) -> bytes | None:
    if body is None:
        return None
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    if isinstance(body, str):
        return body.encode()
    return json.dumps(body, ensure_ascii=False).encode()


def _header_pairs(headers: object) -> list[tuple[str, str]]:
    if isinstance(headers, dict):
        return [(str(k), str(v)) for k, v in headers.items()]
    if isinstance(headers, list | tuple):
        out: list[tuple[str, str]] = []
        for pair in headers:
            if isinstance(pair, list | tuple) and len(pair) == 2:
                out.append((str(pair[0]), str(pair[1])))
        return out
    return []


def _first_attr(obj: object, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def capture_times(capture: Any) -> tuple[float | None, float]:
    """``(t_response, t_end)`` of a capture, tolerating raw captures with neither recorded."""
    chunks: list[tuple[float, bytes]] = list(getattr(capture, "chunks", None) or [])
    last = chunks[-1][0] if chunks else 0.0
    t_resp = _first_attr(capture, "response_at", "response_t", "t_response", "t_headers")
    end = _first_attr(capture, "end_t", "t_end", "end")
    if isinstance(end, dict):  # a JournalRun's closing record: {"end": t, "status": ...}
        end = end.get("end")
    t_end = float(end) if isinstance(end, int | float) else last
    return (float(t_resp) if isinstance(t_resp, int | float) else None, max(t_end, last))


def capture_end(capture: Any) -> float:
    return capture_times(capture)[1]


async def replay_capture(
    capture: Any, sink: RunSink, control: ReplayControl, *, start_at: float | None = None
) -> None:
    """Feed ``capture`` into ``sink`` (a RunSink) with its timing scaled by ``1/control.speed``.

    Everything recorded before ``start_at`` (or ``control.start_at``) is fed at once: that is how a
    backward seek replays "instantly up to t". ``on_end`` comes last, as from the transport.
    """
    if start_at is not None:
        control.start_at = max(float(start_at), 0.0)
        control._target = max(control._target, control.start_at)
        control._anchor_pos = control._target
    control._anchor_wall = time.monotonic()
    control.capture = capture
    control.finished = False
    t_resp, t_end = capture_times(capture)
    control.duration = t_end
    chunks: list[tuple[float, bytes]] = list(getattr(capture, "chunks", None) or [])
    request = getattr(capture, "request", None)
    if isinstance(request, dict) and request:
        sink.on_request(
            str(request.get("method") or "POST"),
            str(request.get("url") or ""),
            {str(k): str(v) for k, v in (request.get("headers") or {}).items()}
            if isinstance(request.get("headers"), dict)
            else {},
            _body_bytes(request.get("body")),
        )
    status = _first_attr(capture, "response_status", "status")
    if isinstance(status, int):
        t0 = t_resp if t_resp is not None else (chunks[0][0] if chunks else 0.0)
        await control._until(t0)
        sink.on_response(status, _header_pairs(getattr(capture, "response_headers", None)), t0)
        control._fed_to(t0)
    budget = time.monotonic()
    for t, data in chunks:
        await control._until(t)
        sink.on_chunk(t, data)
        control._fed_to(t)
        if time.monotonic() - budget > _YIELD_EVERY_S:
            await asyncio.sleep(0)  # instant replay of a big capture must not freeze the window
            budget = time.monotonic()
    await control._until(t_end)
    sink.on_end(t_end)
    control._fed_to(t_end)
    control.finished = True
    control._notify()
