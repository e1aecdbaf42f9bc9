"""StreamSession's reader at full speed: whole socket reads, no full GC mid-stream, same text."""

from __future__ import annotations

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
    from playground.ui.session import StreamSession

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
    from playground.ui import gc_defer
    from playground.ui.idle import QUIET_S, idle_now, streams_running
    from playground.ui.session import StreamSession

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
    gc_defer.hold()
    gc_defer.hold()
    gc_defer.release()
    assert gc.get_threshold()[2] > before[2] * 1000
    gc_defer.release()
    assert gc.get_threshold() == before
    gc_defer.release()  # an extra release is harmless
    assert gc.get_threshold() == before


def test_stop_and_a_new_send_release_the_hold(qloop: Any, sim: Any) -> None:
    from playground.ui.idle import QUIET_S
    from playground.ui.session import StreamSession

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
    from playground.ui.idle import streams_running

    assert streams_running() == 0
