"""idle: a transcript being scrolled is no idle time, and no time for a full collection."""

from __future__ import annotations

import gc
from typing import Any

import pytest


def test_scrolling_holds_the_full_collection_until_the_view_is_still(
    qloop: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playground.ui.runtime import gc_schedule, idle

    # An earlier test's stream or scroll may still hold (its release due): let it end first.
    qtbot.waitUntil(lambda: gc_schedule._holders == 0, timeout=5000)
    monkeypatch.setattr(idle, "SCROLL_QUIET_S", 0.2)
    monkeypatch.setattr(idle, "_scroll_hold", None)
    oldest = gc.get_threshold()[2]
    idle.scrolled()
    assert idle.scrolling() and not idle.idle_now()
    assert gc.get_threshold()[2] > oldest  # out of reach: no full pass mid-scroll
    for _ in range(5):  # a scroll is many steps: still one hold, released once
        idle.scrolled()
    assert gc_schedule._holders == 1
    qtbot.waitUntil(lambda: gc.get_threshold()[2] == oldest, timeout=3000)
    assert not idle.scrolling()
    assert gc_schedule._holders == 0


def test_the_body_is_read_again_once_the_transcript_is_still(
    qloop: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QObject

    from playground.ui.panels import context_gauge
    from playground.ui.runtime import idle

    monkeypatch.setattr(idle, "SCROLL_QUIET_S", 0.3)
    monkeypatch.setattr(idle, "_scroll_hold", None)
    monkeypatch.setattr(context_gauge, "DEBOUNCE_MS", 10)
    updates: list[bool] = []
    owner = QObject()
    timer = context_gauge._AfterBodyChanges(owner, lambda: updates.append(idle.scrolling()))
    idle.scrolled()
    timer.start()
    qtbot.wait(150)
    assert updates == []  # due, but the user is scrolling
    qtbot.waitUntil(lambda: updates == [False], timeout=3000)
