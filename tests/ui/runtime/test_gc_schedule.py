"""gc_schedule: garbage is collected on the UI thread only, as the automatic collector would."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest


class _Holder:
    """Cyclic garbage holding a Python-owned QObject, as a closed panel's leftovers can be."""

    died_on: ClassVar[list[int]] = []

    def __init__(self) -> None:
        from PySide6.QtCore import QObject

        self.qt_object = QObject()
        self.myself = self

    def __del__(self) -> None:
        _Holder.died_on.append(threading.get_ident())


@pytest.fixture
def pinned(qloop: Any) -> Iterator[Any]:
    from playground.ui.runtime import gc_schedule

    gc_schedule.collect_on_ui_thread()
    assert gc_schedule.pinned() and not gc.isenabled()
    gc.collect()
    yield gc_schedule
    gc.collect()


def _allocate_on_a_worker(count: int) -> list[list[int]]:
    kept: list[list[int]] = []

    def allocate() -> None:  # what a reader thread does: objects that stay
        kept.extend([] for _ in range(count))

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    return kept


def test_garbage_holding_a_qt_object_dies_on_the_ui_thread_not_a_worker(
    pinned: Any, qtbot: Any
) -> None:
    _Holder.died_on.clear()
    _Holder()  # unreachable at once; being a cycle, only a collection frees it
    kept = _allocate_on_a_worker(20 * gc.get_threshold()[0])  # far past the young threshold
    # Automatic collection would have run on the worker, destroying the QObject there.
    assert _Holder.died_on == []
    qtbot.waitUntil(lambda: bool(_Holder.died_on), timeout=2000)  # the UI thread's timer
    assert _Holder.died_on == [threading.get_ident()]
    assert len(kept) == 20 * gc.get_threshold()[0]


def test_the_timer_collects_what_was_allocated_so_counts_stay_bounded(
    pinned: Any, qtbot: Any
) -> None:
    kept = _allocate_on_a_worker(5 * gc.get_threshold()[0])
    assert gc.get_count()[0] > gc.get_threshold()[0]  # nobody collected on the worker
    qtbot.waitUntil(lambda: gc.get_count()[0] <= gc.get_threshold()[0], timeout=2000)
    assert kept


def test_collect_due_picks_the_generation_the_automatic_collector_would(pinned: Any) -> None:
    threshold = gc.get_threshold()
    assert threshold == (700, 10, 10)  # CPython's defaults, which the counts below follow
    assert pinned.collect_due() == -1  # nothing allocated since the last collection
    kept: list[list[object]] = [[] for _ in range(threshold[0] + 10)]
    assert pinned.collect_due() == 0 and gc.get_count()[0] < threshold[0]
    # Ten young passes' worth of new objects at once: the middle generation goes with them.
    kept += [[] for _ in range(threshold[0] * threshold[1] + 10)]
    assert pinned.collect_due() == 1 and gc.get_count()[1] == 0
    # Young passes of just over 700 objects: the tenth is a middle pass, as in CPython.
    done = []
    for _ in range(threshold[1]):
        kept += [[] for _ in range(threshold[0] + 10)]
        done.append(pinned.collect_due())
    assert done == [0] * (threshold[1] - 1) + [1]
    assert len(kept) > threshold[0] * threshold[1]


def _oldest_due(gc_schedule: Any) -> None:
    """Counts as after many middle-generation passes: the oldest generation's is past due."""
    for _ in range(gc.get_threshold()[2] + 1):
        gc.collect(1)
    assert gc.get_count()[2] > gc.get_threshold()[2]


def test_a_full_pass_waits_while_a_stream_holds_and_for_a_quarter_new(
    pinned: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gc_schedule = pinned
    threshold = gc.get_threshold()[0]
    monkeypatch.setattr(gc_schedule, "_long_lived_total", 1000)
    monkeypatch.setattr(gc_schedule, "_long_lived_pending", 1000)
    _oldest_due(gc_schedule)
    gc_schedule.hold()
    try:
        kept: list[list[object]] = [[] for _ in range(threshold + 10)]
        assert gc_schedule.collect_due() == 0  # a stream runs: never the full pass
    finally:
        gc_schedule.release()
    _oldest_due(gc_schedule)
    kept += [[] for _ in range(threshold + 10)]
    # Fewer new long-lived objects than a quarter of those kept: CPython skips the full pass.
    monkeypatch.setattr(gc_schedule, "_long_lived_pending", 100)
    assert gc_schedule.collect_due() == 0
    _oldest_due(gc_schedule)
    kept += [[] for _ in range(threshold + 10)]
    monkeypatch.setattr(gc_schedule, "_long_lived_pending", 300)
    assert gc_schedule.collect_due() == 2
    assert gc.get_count()[2] == 0
    assert gc_schedule._long_lived_pending == 0 and gc_schedule._long_lived_total > 0
    assert kept


def test_the_tick_follows_the_streams(pinned: Any) -> None:
    gc_schedule = pinned
    timer = gc_schedule._timer
    assert timer is not None and timer.isActive()
    assert timer.interval() == gc_schedule.IDLE_TICK_MS
    gc_schedule.hold()
    try:
        assert timer.interval() == gc_schedule.STREAMING_TICK_MS
    finally:
        gc_schedule.release()
    assert timer.interval() == gc_schedule.IDLE_TICK_MS
    gc_schedule.collect_on_ui_thread()  # idempotent: one timer
    assert gc_schedule._timer is timer


def test_pinning_needs_the_ui_thread(pinned: Any) -> None:
    from playground.ui.runtime import gc_schedule

    errors: list[BaseException] = []

    def from_worker() -> None:
        timer, gc_schedule._timer = gc_schedule._timer, None
        try:
            gc_schedule.collect_on_ui_thread()
        except RuntimeError as exc:
            errors.append(exc)
        finally:
            gc_schedule._timer = timer

    worker = threading.Thread(target=from_worker)
    worker.start()
    worker.join()
    assert errors and "UI thread" in str(errors[0])


def test_quitting_stops_the_timer_and_leaves_automatic_collection_off(pinned: Any) -> None:
    # Switched back on at quit, the first thread to allocate would collect: Qt wrappers died on
    # the simulator's thread and a test run deadlocked (a disconnect there waiting for the GIL,
    # the UI thread holding it and waiting for Qt's connection lock).
    gc_schedule = pinned
    try:
        gc_schedule._unpin()  # what the application's aboutToQuit runs
        assert not gc_schedule.pinned()
        assert not gc.isenabled()
    finally:
        gc_schedule.collect_on_ui_thread()  # pinned again for the tests after this one
    assert gc_schedule.pinned() and not gc.isenabled()


def test_the_heap_is_trimmed_once_after_a_stream_at_the_first_idle_tick(
    pinned: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.runtime import heap_trim

    gc_schedule = pinned
    trims: list[int] = []

    def trim() -> bool:
        trims.append(1)
        return True

    monkeypatch.setattr(heap_trim, "trim", trim)
    monkeypatch.setattr(gc_schedule, "_trim_due", False)
    gc_schedule.collect_due()
    assert trims == [] and not gc_schedule.trim_pending()  # no stream since: nothing to give
    gc_schedule.hold()
    try:
        assert gc_schedule.trim_pending()
        gc_schedule.collect_due()
        assert trims == []  # never while a stream's frames are due
    finally:
        gc_schedule.release()
    gc_schedule.collect_due()
    assert trims == [1] and not gc_schedule.trim_pending()
    gc_schedule.collect_due()
    assert trims == [1]  # once per stretch of streams, not every tick
