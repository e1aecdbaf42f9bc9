"""StreamSession's reader at full speed: whole socket reads, no full GC mid-stream, same text."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from playground.protocol.requests import RequestParams, build_body
from playground.protocol.stream import StreamDecoder
from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


def _spec(sim: Any, tokens: int, pace: str = "instant") -> Any:
    body = build_body("chat", RequestParams(model="sim-chat", prompt="Say something."))
    extra = {"X-Sim-Pace": pace, "X-Sim-Tokens": str(tokens)}
    return make_spec(
        provider_by_id("simulator"), "chat", body, None, base_url=sim.base_url, sim_headers=extra
    )


def test_an_instant_stream_arrives_whole_in_fewer_reads_than_events(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat")
    qloop.do(session.start, _spec(sim, 3000))
    assert qloop.run(session.wait()) == "complete"
    state, run = session.state, session.run
    assert state is not None
    # One chunk per socket read: a server writing faster than one event per read shows up as
    # reads holding several events (per HTTP chunk, chunks and events would be one to one).
    assert len(run.chunks) < state.events
    times = [t for t, _ in run.chunks]
    assert times == sorted(times)
    again = StreamDecoder("chat")
    again.set_content_type("text/event-stream")
    for t, data in run.chunks:
        again.feed(data, t)
    again.finish(run.chunks[-1][0])
    assert state.text == again.state.text and len(state.text) > 1000


def test_full_collections_wait_while_a_stream_runs_and_resume_after(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime import gc_schedule
    from playground.ui.runtime.idle import QUIET_S, idle_now, streams_running
    from playground.ui.runtime.session import StreamSession

    qloop.sleep(QUIET_S + 0.3)  # an earlier test's run ends its quiet time first
    before = gc.get_threshold()
    session = StreamSession("chat")
    during: list[tuple[int, int, int]] = []
    running: list[int] = []
    session.updated.connect(lambda: during.append(gc.get_threshold()))
    session.updated.connect(lambda: running.append(streams_running()))
    assert streams_running() == 0
    qloop.do(session.start, _spec(sim, 200, pace="fast"))
    assert qloop.run(session.wait()) == "complete"
    assert during and all(t[2] > before[2] * 1000 for t in during)
    assert all(t[:2] == before[:2] for t in during)  # the young generations are untouched
    assert set(running) == {1}
    assert streams_running() == 0
    # The full collection waits out the quiet time after the run too, then comes back.
    assert gc.get_threshold()[2] > before[2] * 1000 and not idle_now()
    qloop.sleep(QUIET_S + 0.3)
    assert gc.get_threshold() == before and idle_now()
    # Nested holders (two panels streaming): only the last release restores.
    gc_schedule.hold()
    gc_schedule.hold()
    gc_schedule.release()
    assert gc.get_threshold()[2] > before[2] * 1000
    gc_schedule.release()
    assert gc.get_threshold() == before
    gc_schedule.release()  # an extra release is harmless
    assert gc.get_threshold() == before


def test_stop_and_a_new_send_release_the_hold(qloop: Any, sim: Any) -> None:
    from playground.ui.runtime.idle import QUIET_S
    from playground.ui.runtime.session import StreamSession

    qloop.sleep(QUIET_S + 0.3)  # an earlier test's run ends its quiet time first
    before = gc.get_threshold()
    session = StreamSession("chat")
    qloop.do(session.start, _spec(sim, 5000, pace="fast"))
    qloop.sleep(0.1)
    qloop.do(session.start, _spec(sim, 50, pace="fast"))  # replaces the first run
    assert qloop.run(session.wait()) == "complete"
    qloop.sleep(QUIET_S + 0.3)
    assert gc.get_threshold() == before
    qloop.do(session.start, _spec(sim, 5000, pace="fast"))
    qloop.sleep(0.1)
    session.stop()
    qloop.run(session.aclose())
    qloop.sleep(QUIET_S + 0.3)
    assert gc.get_threshold() == before
    from playground.ui.runtime.idle import streams_running

    assert streams_running() == 0


def test_a_live_run_is_decoded_on_its_reader_thread_and_matches_a_decode_of_its_reads(
    qloop: Any, sim: Any, monkeypatch: Any
) -> None:
    import threading

    from playground.ui.runtime.session import StreamSession

    threads: set[str] = set()
    feed = StreamDecoder.feed

    def watched(self: StreamDecoder, chunk: bytes, t: float) -> Any:
        threads.add(threading.current_thread().name)
        return feed(self, chunk, t)

    monkeypatch.setattr(StreamDecoder, "feed", watched)
    session = StreamSession("chat")
    timeline: list[int] = []
    session.updated.connect(lambda: timeline.extend(i.index for i in session.new_items()))
    qloop.do(session.start, _spec(sim, 3000))
    assert qloop.run(session.wait()) == "complete"
    assert threads == {"playground-reader"}  # never on the UI thread
    state, run = session.state, session.run
    assert state is not None and session.decoder is not None
    again = StreamDecoder("chat")
    again.set_content_type("text/event-stream")
    for t, data in run.chunks:
        again.feed(data, t)
    again.finish(run.chunks[-1][0])
    assert state.text == again.state.text and state.events == again.state.events
    assert [i.raw for i in session.decoder.items] == [i.raw for i in again.items]
    # Every item reached the session's updates once, in order (the timeline's rows).
    assert timeline == list(range(len(again.items)))
    assert run.t_first_token is not None and run.t_first_token >= run.chunks[0][0]


def test_stop_mid_stream_keeps_every_decoded_read_in_the_record_and_the_timeline(
    qloop: Any, sim: Any
) -> None:
    from playground.ui.runtime.session import StreamSession

    session = StreamSession("chat")
    timeline: list[int] = []
    session.updated.connect(lambda: timeline.extend(i.index for i in session.new_items()))
    qloop.do(session.start, _spec(sim, 20000, pace="fast"))

    async def streaming() -> None:
        while session.state is None or len(session.state.text) <= 2000:
            await asyncio.sleep(0.005)

    qloop.run(streaming())
    session.stop()
    assert qloop.run(session.wait()) == "cancelled"
    qloop.sleep(0.1)
    decoder, run = session.decoder, session.run
    assert decoder is not None
    # The state holds exactly what the run's reads hold: none decoded without being recorded.
    again = StreamDecoder("chat")
    again.set_content_type("text/event-stream")
    for t, data in run.chunks:
        again.feed(data, t)
    assert decoder.state.text == again.state.text
    assert timeline == list(range(len(decoder.items)))


def test_the_reader_thread_runs_below_the_ui_thread(qloop: Any, sim: Any) -> None:
    """The UI thread gets a CPU first: the reader reads and decodes at READER_NICE below it."""
    import os
    import sys
    import threading

    import pytest

    from playground.transport.thread_priority import READER_NICE
    from playground.ui.runtime.session import StreamSession

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread nice values are Linux's")
    seen: set[tuple[str, int]] = set()

    def tap(_: bytes) -> None:
        seen.add((threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, 0)))

    session = StreamSession("chat")
    session.chunk_tap = tap
    qloop.do(session.start, _spec(sim, 300))
    assert qloop.run(session.wait()) == "complete"
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert seen == {("playground-reader", base + READER_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, 0) == base  # this (the UI) thread is untouched
