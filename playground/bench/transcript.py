"""A long saved transcript: opening it to the paint of its last screen, and scrolling it.

The conversation is made with the store the window keeps conversations in (runs/conversations.py)
in a data folder of the benchmark's own: ``turns`` turns, each user prompt a line or two, each
answer a few hundred words of Markdown with a fenced code block and a table, as a model's
answers about code read. It is opened the way the window opens a saved conversation (the
store's load, then ``ConversationKeeper.open``, as ``--open-conversation`` and the Conversations
dock do) and timed until the first paint in which the thread is scrolled to its end; then the
thread is scrolled end to end a page per frame with its scroll bar, each frame timed from the
scroll to the end of its paint (the events and timers the scroll set off, the layouts, the
paint: ``frames.settle_layouts`` and ``frames.paint_now``, as the other groups time a frame).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from typing import TYPE_CHECKING, Any

from playground.bench.timing import percentile

if TYPE_CHECKING:
    from PySide6.QtWidgets import QAbstractScrollArea

Value = float | str
OPENS = 3  # opens of the conversation, each after a new conversation: the figure is the median

_LANGS = ("python", "rust", "typescript", "go")
_TOPICS = (
    "retry a request with exponential backoff",
    "parse server-sent events from a byte stream",
    "cache responses keyed by their prompt",
    "stream tokens into a text view without blocking",
    "measure time to first token",
    "cancel a request that takes too long",
)


def answer_text(number: int) -> str:
    """A model's answer about code: paragraphs, a list, a fenced code block and a table, about
    300 words, different for each ``number`` (no two turns alike)."""
    topic = _TOPICS[number % len(_TOPICS)]
    lang = _LANGS[number % len(_LANGS)]
    limit = 3 + number % 5
    return f"""## How to {topic} ({number})

Here is one way to {topic}. The idea is to keep the state in one place, to make every step
observable, and to fail early with a clear message when the input is not what you expect. A
gateway that answers quickly most of the time still stalls now and then, so the code below
waits at most {limit} seconds before it gives up, and it says so in the log.

The important parts are:

- **Bounded waiting**: every wait has a deadline, so a stuck connection never holds the UI.
- **Idempotent steps**: a step that runs twice leaves the same result as running it once.
- **Visible failures**: an error names the request, the attempt and the reason, never the key.
- *Small pieces*: each function does one thing, and can be tested without a network.

```{lang}
def attempt_{number}(client, request, attempts={limit}):
    delay = 0.25
    for attempt in range(attempts):
        try:
            response = client.send(request, timeout={limit})
            if response.status < 500:
                return response
        except TimeoutError as exc:
            log.warning("attempt %d of %d timed out: %s", attempt + 1, attempts, exc)
        sleep(delay)
        delay = min(delay * 2, 8.0)
    raise RuntimeError("gave up after %d attempts" % attempts)
```

The table sums up how the settings change what you see in practice:

| Setting | Default | When to raise it | When to lower it |
|---------|---------|------------------|------------------|
| attempts | {limit} | flaky networks | interactive tools |
| first delay | 0.25 s | rate limits (429) | local servers |
| longest delay | 8 s | batch jobs | user-facing calls |
| timeout | {limit} s | long answers | health checks |

With these numbers a request that fails every time gives up after about {limit * 2} seconds,
and a request that fails once costs a quarter of a second more than one that never fails.
If you stream the answer, measure the time to the first token separately from the whole
request: a slow first token points at the queue in front of the model, a slow stream at the
model itself or at the network between you and the gateway. Keep both numbers in the log,
next to the request id, so a report from a user can be matched with what the server saw.
"""


def prompt_text(number: int) -> str:
    topic = _TOPICS[number % len(_TOPICS)]
    return f"How would you {topic} in {_LANGS[number % len(_LANGS)]}? Show me the code ({number})."


def save_conversation(root: str, n_turns: int, route: str = "chat") -> str:
    """A conversation of ``n_turns`` turns (user and assistant in turn) saved under ``root``
    (a data folder) with the store the window uses; its id."""
    from pathlib import Path

    from playground.protocol.conversation.model import Conversation, Turn
    from playground.runs.conversations import ConversationStore

    turns = [
        Turn.of("user", prompt_text(i // 2)) if i % 2 == 0 else Turn.of("assistant", answer_text(i))
        for i in range(n_turns)
    ]
    store = ConversationStore(Path(root) / "conversations")
    saved = store.new(route, Conversation(tuple(turns), "You are a concise coding assistant."))
    saved.model = "sim-fast"
    store.save(saved)
    return saved.id


def thread_scroller(panel: Any) -> QAbstractScrollArea:
    """The scroll area that shows ``panel``'s thread: the tallest one inside its view."""
    from PySide6.QtWidgets import QAbstractScrollArea

    view = panel.conversation.view
    named = getattr(view, "scroller", None)
    if isinstance(named, QAbstractScrollArea):
        return named
    areas = [view] if isinstance(view, QAbstractScrollArea) else []
    areas += view.findChildren(QAbstractScrollArea)
    shown = [a for a in areas if a.isVisibleTo(panel.window())] or areas
    if not shown:
        raise RuntimeError("the thread has no scroll area")
    return max(shown, key=lambda a: a.verticalScrollBar().maximum())


class _PaintWatch:
    """Notes a paint of a scroll area's viewport or of its column that shows the thread's end."""

    def __init__(self, area: QAbstractScrollArea, *, scrolled: bool) -> None:
        from PySide6.QtCore import QEvent, QObject
        from PySide6.QtWidgets import QScrollArea

        self.area = area
        self.scrolled = scrolled  # a thread taller than the view: its end is below its start
        self.painted_end = False
        watch = self

        class Filter(QObject):
            def eventFilter(self, obj: Any, event: Any) -> bool:
                if event.type() == QEvent.Type.Paint:
                    bar = watch.area.verticalScrollBar()
                    if bar.value() == bar.maximum() and (bar.maximum() > 0 or not watch.scrolled):
                        watch.painted_end = True
                return False

        self._filter = Filter()
        self._watched = [area.viewport()]
        column = area.widget() if isinstance(area, QScrollArea) else None
        if column is not None:
            self._watched.append(column)
        for widget in self._watched:
            widget.installEventFilter(self._filter)

    def close(self) -> None:
        for widget in self._watched:
            widget.removeEventFilter(self._filter)


async def _until_end_painted(area: QAbstractScrollArea, timeout: float, *, scrolled: bool) -> None:
    """Qt's events, layouts and paints until one paint of the thread shows its end
    (``scrolled``: a thread taller than its view, whose end is not its start). The layouts and
    paints are delivered here, so the wait ends as the paint does; Qt's other events and timers
    run in the event loop's turns between (never ``processEvents`` inside a coroutine: qasync
    would run another task inside this one)."""
    from playground.ui.runtime.frames import paint_now, settle_layouts

    watch = _PaintWatch(area, scrolled=scrolled)
    deadline = time.perf_counter() + timeout
    try:
        while True:
            settle_layouts()
            paint_now()
            if watch.painted_end:
                return
            if time.perf_counter() > deadline:
                raise RuntimeError("the opened thread never painted its end")
            await asyncio.sleep(0)
    finally:
        watch.close()


async def _scroll_frames(area: QAbstractScrollArea) -> tuple[list[float], int]:
    """Each frame's ms while the thread is scrolled from its end to its start and back, a page
    a frame with its scroll bar; and how many pages one way took. A frame is the scroll, one
    turn of Qt's event loop (the timers and queued calls it set off, and what earlier frames
    left to later turns), the layouts and the paint; the next frame starts as it ends, so no
    work falls between two frames untimed."""
    from PySide6.QtWidgets import QAbstractSlider

    from playground.ui.runtime.frames import paint_now, settle_layouts

    bar = area.verticalScrollBar()
    frames: list[float] = []
    pages = 0
    for action, upward in (
        (QAbstractSlider.SliderAction.SliderPageStepSub, True),
        (QAbstractSlider.SliderAction.SliderPageStepAdd, False),
    ):
        # Four times the pages the range holds now: a bound on the frames, should it grow.
        limit = 4 * (bar.maximum() // max(bar.pageStep(), 1)) + 20
        count = 0
        while bar.value() > bar.minimum() if upward else bar.value() < bar.maximum():
            if count > limit:
                raise RuntimeError("scrolling the thread never reached its end")
            started = time.perf_counter()
            bar.triggerAction(action)
            await asyncio.sleep(0)  # what the scroll set off: zero timers, queued calls
            settle_layouts()
            paint_now()
            frames.append((time.perf_counter() - started) * 1000.0)
            count += 1
        pages = max(pages, count)
    return frames, pages


async def _transcript(url: str, data: str, n_turns: int) -> dict[str, Value]:
    from PySide6.QtCore import QSettings

    from playground.ui.window.shell import MainWindow

    big = save_conversation(data, n_turns)
    small = save_conversation(data, 2)
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(data, "config")
    settings = QSettings(os.path.join(config, "bench.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, simulator_url=url, start_simulator=False, interactive=False)
    window.show()
    await asyncio.sleep(0.2)
    kept = window.kept
    opens: list[float] = []
    try:
        # A short conversation first: the modules a shown turn needs are imported outside the
        # measured opens (a window that shows any answer has them).
        panel = kept.open(kept.store.load(small))
        area = thread_scroller(panel)
        await _until_end_painted(area, 30.0, scrolled=False)
        for _ in range(OPENS):
            assert panel.conversation is not None
            panel.conversation.clear()  # New conversation: every block of the last one goes
            await asyncio.sleep(0.1)
            started = time.perf_counter()
            panel = kept.open(kept.store.load(big))
            area = thread_scroller(panel)
            await _until_end_painted(area, 60.0, scrolled=True)
            opens.append((time.perf_counter() - started) * 1000.0)
        assert panel.conversation is not None
        shown = len(panel.conversation.turns)
        if shown != n_turns:
            raise RuntimeError(f"the opened thread holds {shown} of {n_turns} turns")
        await asyncio.sleep(0.1)  # what the open put off runs before the scrolling starts
        scroll_ms, pages = await _scroll_frames(area)
    finally:
        window._closing = True
        for p in window.panels.values():
            await p.session.aclose()
        window.close()
    return {
        "transcript_open_ms": statistics.median(opens),
        "transcript_open_ms_min": min(opens),
        "transcript_open_ms_max": max(opens),
        "transcript_scroll_p99_ms": percentile(scroll_ms, 0.99),
        "transcript_scroll_p50_ms": percentile(scroll_ms, 0.5),
        "transcript_scroll_frames": float(len(scroll_ms)),
        "transcript_pages": float(pages),
        "transcript_turns": float(shown),
    }


def transcript_figures(n_turns: int) -> dict[str, Value]:
    """``transcript_open_ms``: a saved conversation of ``n_turns`` turns opened in the chat
    panel until the first paint of its end, the median of ``OPENS`` opens (each after a new
    conversation); ``transcript_scroll_p99_ms``: the p99 of the frames scrolling it from its
    end to its start and back, a page a frame."""
    import qasync  # type: ignore[import-untyped]
    from PySide6.QtWidgets import QApplication

    from playground.bench.ui import _start_sim, _stop_sim

    result: dict[str, Any]
    before = os.environ.get("PLAYGROUND_DATA_DIR")
    with tempfile.TemporaryDirectory(prefix="playground-transcript-") as data:
        # The window keeps its history and conversations there too: never the user's own.
        os.environ["PLAYGROUND_DATA_DIR"] = data
        sim, url = _start_sim()
        try:
            app = QApplication.instance() or QApplication([])
            loop = qasync.QEventLoop(app)
            asyncio.set_event_loop(loop)
            with loop:
                result = loop.run_until_complete(_transcript(url, data, n_turns))
        finally:
            _stop_sim(sim)
            if before is None:
                os.environ.pop("PLAYGROUND_DATA_DIR", None)
            else:
                os.environ["PLAYGROUND_DATA_DIR"] = before
    return result
