"""A long session: many runs as one conversation in a chat panel's thread, memory and frame cost.

Each run's answer joins the thread, and the next request carries every earlier turn (checked on
each request the thread sent, not assumed): the 50th run's request holds 99 turns.
"""

from __future__ import annotations

import asyncio
import gc
import os
import resource
import time
from typing import Any

from playground.bench.timing import percentile
from playground.bench.ui import PACE_2K, _start_sim, _stop_sim

Value = float | str
_PROMPT = "Go on with the story of the lighthouse keeper."
PACED_RUNS = 3  # the session's last runs, streamed at 2,000 tokens a second and their frames timed


def rss_bytes() -> int:
    """This process's resident memory now (Linux ``/proc``; elsewhere its peak so far)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def _at_rest(timeout: float = 10.0) -> None:
    """Until the window is at rest after a run, as a user's window is between two prompts: the
    quiet time after the last stream passed and the idle tick that follows it ran (the full
    collection when due, the heap's free pages handed back: gc_schedule.py). The runs go back
    to back (0.05 s apart), so without this both readings would be taken mid-session."""
    from playground.ui.runtime import gc_schedule, idle

    deadline = time.monotonic() + timeout  # (qasync's loop.time() is not in seconds)
    while time.monotonic() < deadline:
        if idle.idle_now() and not gc_schedule.trim_pending():
            break
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.05)


async def _session(url: str, n_runs: int, n_tokens: int) -> dict[str, Value]:
    from PySide6.QtCore import QSettings

    from playground.ui.runtime import frames
    from playground.ui.window.shell import MainWindow

    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.getcwd(), ".bench-config")
    settings = QSettings(os.path.join(config, "bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, simulator_url=url, start_simulator=False, interactive=False)
    window.show()
    await asyncio.sleep(0.2)
    panel = window.show_panel("chat")
    pace = {"X-Sim-Pace": "instant"}
    base_headers = panel.sim_headers
    panel.sim_headers = lambda: {  # type: ignore[method-assign]
        **base_headers(),
        "X-Sim-Tokens": str(n_tokens),
        **pace,
    }
    frame_s: list[float] = []
    early = late = chars = kept = carried = conversations = 0
    thread = panel.conversation
    if thread is None:
        raise RuntimeError("the chat panel holds no conversation")
    first_paced = max(1, n_runs - PACED_RUNS + 1)
    try:
        for number in range(1, n_runs + 1):
            last = number == n_runs
            if number == first_paced:
                # The last runs at a fast model's pace, so they have frames enough for a p99:
                # one run of 2,000 tokens at 2,000 a second is about 60 frames, whose p99 is
                # their worst; three give about 180. (Before the simulator kept its pace, one
                # run streamed at about 800 tokens a second: about 150 frames.)
                pace["X-Sim-Pace"] = PACE_2K
                frames.frame_observers.append(frame_s.append)
            if number == 1:
                # The form keeps it for every run after. Set again each run, the body (which
                # holds the thread) was taken as a pasted one: another conversation in the
                # thread's place, so each run started a kept conversation of its own, all
                # earlier turns in it (50 files, 1.38 memory growth where one reads 1.19).
                panel.editor.set_body({**panel.editor.body(), "max_tokens": n_tokens * 2})
            panel.editor.set_prompt(f"{_PROMPT} ({number})")
            before: list[tuple[str, str]] = [(t.role, t.text) for t in thread.turns]
            panel.send()
            status = await panel.session.wait()
            state = panel.session.state
            if status not in ("complete", "incomplete") or state is None or not state.text:
                raise RuntimeError(f"run {number} ended {status}")
            chars += len(state.text)
            await asyncio.sleep(0.05)  # the thread and the history take the finished run
            carried = _carried(thread, before, number)
            if number == min(5, n_runs) or last:
                gc.collect()
                await _at_rest()
                if last:
                    late = rss_bytes()
                else:
                    early = rss_bytes()
        history = window.history
        kept = len(history.list_runs("chat")) if history is not None else 0
        from playground.runs.writer import flush_shared

        flush_shared(30.0)
        conversations = len(window.kept.store.list())
    finally:
        if frame_s.append in frames.frame_observers:
            frames.frame_observers.remove(frame_s.append)
        window._closing = True
        for p in window.panels.values():
            await p.session.aclose()
        window.close()
    turns = panel.conversation.turns if panel.conversation is not None else []
    return {
        "session_memory_growth": late / early,
        "session_frame_ms_p99": percentile([s * 1000 for s in frame_s], 0.99),
        "session_frame_ms_p50": percentile([s * 1000 for s in frame_s], 0.5),
        "session_rss_mb_early": early / 1e6,
        "session_rss_mb_late": late / 1e6,
        "session_runs": float(n_runs),
        "session_chars": float(chars),
        "session_turns": float(len(turns)),
        "session_request_turns": float(carried),
        "session_conversations": float(conversations),  # kept: one, the whole session
        "session_history_runs": float(kept),
        "session_frames": float(len(frame_s)),
    }


def _carried(thread: Any, before: list[tuple[str, str]], number: int) -> int:
    """The turns the request just sent carried: every turn of the thread before it, then the
    run's prompt (RuntimeError if not: the runs would not be one conversation)."""
    from playground.protocol.conversation.bodies import parse_body

    if len(thread.requests) != number:
        raise RuntimeError(f"run {number}: the thread sent {len(thread.requests)} requests")
    sent = parse_body(thread.requests[-1]["body"], thread.route).conversation.turns
    if [(t.role, t.text) for t in sent[:-1]] != before or sent[-1].role != "user":
        raise RuntimeError(f"run {number}'s request did not carry the {len(before)} turns before")
    if len(thread.turns) != len(sent) + 1:  # the answer joined the thread
        raise RuntimeError(f"run {number}'s answer did not join the thread")
    return len(sent)


def session_figures(n_runs: int, n_tokens: int) -> dict[str, Value]:
    """``session_memory_growth``: resident memory after the last of ``n_runs`` chat runs of
    ``n_tokens`` tokens each, into one panel's thread and the history, over after the 5th;
    ``session_frame_ms_p99``: the p99 of the frames' UI time in the last ``PACED_RUNS`` runs
    (2,000 tokens/s)."""
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    sim, url = _start_sim()
    result: dict[str, Any]
    try:
        app = QApplication.instance() or QApplication([])
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            result = loop.run_until_complete(_session(url, n_runs, n_tokens))
    finally:
        _stop_sim(sim)
    return result
