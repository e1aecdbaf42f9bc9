"""The frame loop: each frame's decoding is bounded by time, every frame is reported, work put
off to after its paint runs there, and the readers pause for UI work outside frames."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from playground.ui.runtime import frames, reader_pause
from playground.ui.runtime.frame_rate import FRAME_MS


class _Backlog:
    """A reader with far more queued than a frame takes: each drain spends its whole budget."""

    def __init__(self, slices: int, ahead: Any = None) -> None:
        self.left = slices
        self.error: BaseException | None = None
        self.drains = 0
        self.ahead = ahead  # a DecodeAhead: its lock is what reader_pause holds

    def start(self, loop: Any) -> None:
        pass

    async def wait(self, timeout: float) -> bool:
        await asyncio.sleep(0)
        return True  # the thread has ended; its queue has not

    def hold(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def cancel(self) -> None:
        pass

    def empty(self) -> bool:
        return self.left == 0

    def drain(self, sink: Any, budget: float | None, *, chunks: bool = True) -> bool:
        end = time.perf_counter() + (budget or 0.0)
        while time.perf_counter() < end:
            pass
        self.drains += 1
        self.left -= 1
        return self.left > 0


class _Frames:
    def __init__(self, reader: _Backlog, on_update: Any = None) -> None:
        self.reader = reader
        self.drains_at_update: list[int] = []
        self.on_update = on_update

    def update_pending(self) -> bool:
        return True

    def update_now(self) -> bool:
        self.drains_at_update.append(self.reader.drains)
        if self.on_update is not None:
            self.on_update()
        return True


class _Sink:
    def flush(self) -> None:
        pass


@contextlib.contextmanager
def _paints_noted_in(order: list[str]) -> Iterator[None]:
    """Every frames.paint_now while the block runs appends "paint" to ``order`` (and paints)."""
    painted = frames.paint_now

    def paint() -> None:
        order.append("paint")
        painted()

    frames.paint_now = paint
    try:
        yield
    finally:
        frames.paint_now = painted


def test_a_frame_stops_decoding_at_its_budget_and_shows_what_it_has(qapp: Any) -> None:
    reader = _Backlog(slices=40)
    shown = _Frames(reader)
    spent: list[float] = []
    frames.frame_observers.append(spent.append)
    try:
        asyncio.run(frames.read_in_frames(reader, _Sink(), shown))  # type: ignore[arg-type]
    finally:
        frames.frame_observers.remove(spent.append)
    assert reader.left == 0
    # Forty slices' worth queued: the widgets get it a frame's budget at a time, not all at once.
    assert frames.FRAME_DRAIN_S < FRAME_MS / 1000  # within one frame's time
    per_frame = round(frames.FRAME_DRAIN_S / frames.DRAIN_BUDGET_S) + 1
    steps = [b - a for a, b in zip([0, *shown.drains_at_update], shown.drains_at_update)]
    assert len(steps) > 40 // per_frame
    assert max(steps) <= per_frame
    assert len(spent) == len(shown.drains_at_update) and all(s > 0 for s in spent)


def test_work_put_off_by_an_update_runs_after_the_paint_in_a_turn_of_its_own(qapp: Any) -> None:
    """A frame's handler can put work off to after the frame's paint (the timeline's rows):
    other callbacks of the loop run in between, and it still runs inside the same frame."""
    order: list[str] = []
    reader = _Backlog(slices=1)

    def update() -> None:
        order.append("update")
        asyncio.get_running_loop().call_soon(order.append, "other callback")
        assert frames.after_paint(lambda: order.append("put off"))

    with _paints_noted_in(order):
        asyncio.run(frames.read_in_frames(reader, _Sink(), _Frames(reader, update)))  # type: ignore[arg-type]
    assert order == ["update", "other callback", "paint", "put off", "paint"]
    assert not frames.after_paint(lambda: None)  # outside a frame's update: do it now


def test_work_put_off_is_laid_out_and_painted_before_anything_else_runs(qapp: Any) -> None:
    """Between put-off work and its paint the layouts it asked for are done (the paint shows
    them) and nothing else runs: a callback or timer due then blocked the UI thread in the same
    turn (the answer's render step and its repaint inside the timeline's flush)."""
    from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

    box = QWidget()
    row = QHBoxLayout(box)
    label = QLabel("short")
    row.addWidget(label)
    row.addStretch(1)
    box.resize(600, 40)
    box.show()
    qapp.processEvents()
    narrow = label.width()
    order: list[str] = []
    widths: list[int] = []
    reader = _Backlog(slices=1)

    def work() -> None:
        order.append("put off")
        label.setText("a label that has become a good deal longer")
        asyncio.get_running_loop().call_soon(order.append, "due callback")

    def update() -> None:
        assert frames.after_paint(work)

    painted = frames.paint_now

    def paint() -> None:
        order.append("paint")
        widths.append(label.width())
        painted()

    frames.paint_now = paint
    try:
        asyncio.run(frames.read_in_frames(reader, _Sink(), _Frames(reader, update)))  # type: ignore[arg-type]
    finally:
        frames.paint_now = painted
        box.close()
    assert order == ["paint", "put off", "paint", "due callback"]
    assert widths[-1] > narrow  # laid out at its new text before its paint


def test_readers_pause_for_ui_work_outside_frames_while_they_run(qapp: Any) -> None:
    """While a frame loop runs, reader_pause.paused() holds its reader's decode lock (the
    reader thread waits), and it is released after; once the loop ends nothing is held."""

    class Ahead:
        lock = threading.RLock()

    reader = _Backlog(slices=3, ahead=Ahead())
    seen: list[bool] = []

    def update() -> None:
        with reader_pause.paused():
            got = threading.Event()

            def other() -> None:
                if Ahead.lock.acquire(timeout=0.05):
                    Ahead.lock.release()
                    got.set()

            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
            seen.append(got.is_set())

    asyncio.run(frames.read_in_frames(reader, _Sink(), _Frames(reader, update)))  # type: ignore[arg-type]
    assert seen and not any(seen)  # held against the reader thread in every frame
    done = threading.Event()
    with reader_pause.paused():  # the loop ended: its reader's lock is no longer held

        def take_the_lock() -> None:
            if Ahead.lock.acquire(timeout=1):
                done.set()

        thread = threading.Thread(target=take_the_lock)
        thread.start()
        thread.join()
    assert done.is_set()


class _EndingReader(_Backlog):
    """A reader whose last drain delivers the run's end: its sink's handlers run there."""

    def __init__(self, on_last_drain: Any) -> None:
        super().__init__(slices=1)
        self.on_last_drain = on_last_drain

    def drain(self, sink: Any, budget: float | None, *, chunks: bool = True) -> bool:
        more = super().drain(sink, budget, chunks=chunks)
        if self.left == 0:  # once: a cancelled loop drains again on its way out
            self.on_last_drain()
        return more


def test_work_put_off_where_a_run_ends_runs_after_the_frame_paint(qapp: Any) -> None:
    """A run that ends in a frame finishes inside the frame's decoding (the sink's on_end): the
    work its handlers put off runs after the paint, each piece in a turn of its own, and all of
    it before the frame loop returns (the session's wait() sees it done)."""
    order: list[str] = []

    def ended() -> None:
        order.append("end")
        assert frames.after_paint(lambda: order.append("last rows"))
        assert frames.after_paint(lambda: order.append("thread"))

    reader = _EndingReader(ended)
    with _paints_noted_in(order):
        asyncio.run(frames.read_in_frames(reader, _Sink(), _Frames(reader)))  # type: ignore[arg-type]
    assert order == ["end", "paint", "last rows", "paint", "thread", "paint"]


def test_work_put_off_is_never_lost_when_the_frame_is_cancelled(qapp: Any) -> None:
    """Stop (or a new Send) cancels the frame loop while put-off work waits for its turn: the
    work runs at once on the way out, none of it is dropped."""
    ran: list[str] = []

    async def main() -> None:
        started = asyncio.Event()

        def ended() -> None:
            assert frames.after_paint(lambda: ran.append("last rows"))
            assert frames.after_paint(lambda: ran.append("thread"))
            started.set()

        reader = _EndingReader(ended)
        task = asyncio.ensure_future(
            frames.read_in_frames(reader, _Sink(), _Frames(reader))  # type: ignore[arg-type]
        )
        await started.wait()  # the frame is between its decoding and its paint
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass

    asyncio.run(main())
    assert ran == ["last rows", "thread"]
