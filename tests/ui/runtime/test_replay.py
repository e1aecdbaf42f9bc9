"""replay_capture and ReplayControl: speeds, pause, seek and start_at, against a recording sink."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from playground.ui.runtime.replay import ReplayControl, capture_times, replay_capture


class Recorder:
    """A RunSink that notes every call with the wall clock it came at."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.wall: list[float] = []
        self.t0 = time.monotonic()

    def _note(self, name: str, value: Any) -> None:
        self.calls.append((name, value))
        self.wall.append(time.monotonic() - self.t0)

    def on_request(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> None:
        self._note("request", (method, url, headers, body))

    def on_response(self, status: int, headers: list[tuple[str, str]], t: float) -> None:
        self._note("response", (status, headers, t))

    def on_chunk(self, t: float, data: bytes) -> None:
        self._note("chunk", (t, data))

    def on_transport_error(self, error: Any, t: float) -> None:
        self._note("error", t)

    def on_end(self, t: float) -> None:
        self._note("end", t)

    def chunk_times(self) -> list[float]:
        return [v[0] for name, v in self.calls if name == "chunk"]


def make_capture(times: list[float], end: float | None = None) -> SimpleNamespace:
    return SimpleNamespace(
        route="chat",
        request={
            "method": "POST",
            "url": "http://127.0.0.1:1/v1/chat/completions",
            "headers": {"Authorization": "Bearer [redacted]"},
            "body": {"model": "m", "stream": True},
        },
        response_status=200,
        response_headers={"content-type": "text/event-stream"},
        response_t=times[0] / 2 if times else 0.0,
        chunks=[(t, f"data: {i}\n\n".encode()) for i, t in enumerate(times)],
        end_t=end if end is not None else (times[-1] if times else 0.0),
    )


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 10))


def test_instant_feeds_everything_in_order_with_recorded_times() -> None:
    capture = make_capture([0.5, 1.0, 4.0], end=4.5)
    sink = Recorder()
    control = ReplayControl(speed=0)
    run(replay_capture(capture, sink, control))
    names = [name for name, _ in sink.calls]
    assert names == ["request", "response", "chunk", "chunk", "chunk", "end"]
    assert sink.calls[0][1][3] == b'{"model": "m", "stream": true}'
    assert sink.calls[1][1] == (200, [("content-type", "text/event-stream")], 0.25)
    assert sink.chunk_times() == [0.5, 1.0, 4.0]
    assert sink.calls[-1] == ("end", 4.5)
    assert sink.wall[-1] < 0.5  # 4.5 s of capture, fed at once
    assert control.finished and control.position == control.duration == 4.5


def test_ten_x_keeps_the_rhythm_and_instant_overtakes_it() -> None:
    capture = make_capture([0.0, 1.0, 2.0])
    fast, slow = Recorder(), Recorder()
    done: list[str] = []

    async def both() -> None:
        async def one(name: str, sink: Recorder, speed: float) -> None:
            await replay_capture(capture, sink, ReplayControl(speed=speed))
            done.append(name)

        await asyncio.gather(one("10x", slow, 10.0), one("instant", fast, 0.0))

    run(both())
    assert done == ["instant", "10x"]
    assert slow.chunk_times() == fast.chunk_times() == [0.0, 1.0, 2.0]
    chunk_wall = [w for (name, _), w in zip(slow.calls, slow.wall) if name == "chunk"]
    # 1 s of capture per 100 ms of wall clock at 10x.
    assert 0.08 <= chunk_wall[1] - chunk_wall[0] <= 0.4
    assert 0.17 <= chunk_wall[2] - chunk_wall[0] <= 0.6


def test_pause_stops_progress_and_resume_goes_on() -> None:
    capture = make_capture([0.0, 0.1, 0.2])
    sink = Recorder()
    control = ReplayControl(speed=1.0)

    async def scenario() -> None:
        task = asyncio.ensure_future(replay_capture(capture, sink, control))
        while len(sink.chunk_times()) < 1:
            await asyncio.sleep(0.005)
        control.pause()
        frozen = control.position
        await asyncio.sleep(0.4)
        assert sink.chunk_times() == [0.0]  # two chunks were due long ago
        assert control.position == frozen
        assert not task.done()
        control.resume()
        await task

    run(scenario())
    assert sink.chunk_times() == [0.0, 0.1, 0.2]
    assert sink.calls[-1][0] == "end"


def test_pause_stops_an_instant_replay_too() -> None:
    capture = make_capture([0.1, 0.2])
    sink = Recorder()
    control = ReplayControl(speed=0)
    control.pause()

    async def scenario() -> None:
        task = asyncio.ensure_future(replay_capture(capture, sink, control))
        await asyncio.sleep(0.1)
        assert sink.chunk_times() == [] and not task.done()
        control.resume()
        await task

    run(scenario())
    assert sink.chunk_times() == [0.1, 0.2]


def test_seek_forward_feeds_the_gap_at_once() -> None:
    capture = make_capture([0.0, 5.0, 9.0, 10.0], end=10.0)
    sink = Recorder()
    control = ReplayControl(speed=1.0)

    async def scenario() -> None:
        task = asyncio.ensure_future(replay_capture(capture, sink, control))
        while not sink.chunk_times():
            await asyncio.sleep(0.005)
        control.seek(9.5)
        await asyncio.sleep(0.05)
        assert sink.chunk_times() == [0.0, 5.0, 9.0]
        assert 9.5 <= control.position < 10.0
        await task  # the last half second plays at 1x

    started = time.monotonic()
    run(scenario())
    assert 0.4 <= time.monotonic() - started < 3.0
    assert sink.chunk_times() == [0.0, 5.0, 9.0, 10.0]


def test_seek_while_paused_shows_the_target_and_stays_paused() -> None:
    capture = make_capture([0.0, 1.0, 2.0, 3.0])
    sink = Recorder()
    control = ReplayControl(speed=1.0)
    control.pause()

    async def scenario() -> None:
        task = asyncio.ensure_future(replay_capture(capture, sink, control))
        control.seek(2.0)
        await asyncio.sleep(0.1)
        assert sink.chunk_times() == [0.0, 1.0, 2.0]
        assert control.position == 2.0
        control.seek(10)  # clamps to the end
        await task

    run(scenario())
    assert sink.calls[-1] == ("end", 3.0)


def test_seek_backward_asks_the_owner_to_restart() -> None:
    capture = make_capture([0.0, 1.0, 2.0])
    sink = Recorder()
    asked: list[float] = []
    control = ReplayControl(speed=0)
    control.on_restart = asked.append
    run(replay_capture(capture, sink, control))
    control.seek(0.5)
    assert asked == [0.5] and control.restart_to == 0.5


def test_start_at_feeds_the_past_instantly_then_plays() -> None:
    capture = make_capture([0.0, 1.0, 2.0, 2.1])
    sink = Recorder()
    started = time.monotonic()
    run(replay_capture(capture, sink, ReplayControl(speed=1.0), start_at=2.0))
    assert sink.chunk_times() == [0.0, 1.0, 2.0, 2.1]
    assert 0.05 <= time.monotonic() - started < 1.0  # only the last 100 ms played in time


def test_speed_change_mid_run_does_not_jump() -> None:
    capture = make_capture([0.0, 0.1, 30.0])
    sink = Recorder()
    control = ReplayControl(speed=1.0)

    async def scenario() -> None:
        task = asyncio.ensure_future(replay_capture(capture, sink, control))
        while len(sink.chunk_times()) < 2:
            await asyncio.sleep(0.005)
        before = control.position
        control.speed = 0
        assert control.position >= before
        await task

    run(scenario())
    assert sink.chunk_times() == [0.0, 0.1, 30.0]


def test_raw_capture_without_request_or_status() -> None:
    capture = SimpleNamespace(route="auto", chunks=[(0.0, b"data: x\n\n")])
    sink = Recorder()
    assert capture_times(capture) == (None, 0.0)
    run(replay_capture(capture, sink, ReplayControl(speed=0)))
    assert [name for name, _ in sink.calls] == ["chunk", "end"]


def test_a_recorded_capture_replays_its_headers_at_their_recorded_time() -> None:
    from playground.protocol.capture import read_capture
    from playground.runs.record import RunRecord, write_capture

    async def record_and_replay(path: Any) -> Recorder:
        run = RunRecord(
            "chat",
            "POST",
            "http://127.0.0.1:1/v1/x",
            status=200,
            response_headers=[("content-type", "text/event-stream")],
            chunks=[(0.2, b"data: [DONE]\n\n")],
            t_headers=0.05,
            t_end=0.25,
        )
        write_capture(run, path, "complete")
        sink = Recorder()
        await replay_capture(read_capture(path), sink, ReplayControl(speed=0))
        return sink

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        sink = asyncio.run(record_and_replay(Path(tmp) / "run.capture.jsonl"))
    response = [v for name, v in sink.calls if name == "response"]
    assert response and response[0][2] == 0.05  # not the first chunk's 0.2
    assert sink.chunk_times() == [0.2]
