"""CurrentRun: the focused session's signals relayed, the focus moved, every session's ends."""

from __future__ import annotations

from typing import Any


def test_only_the_followed_sessions_signals_are_relayed(qtbot: Any) -> None:
    from playground.ui.runtime.current_run import CurrentRun
    from playground.ui.runtime.session import StreamSession

    a, b = StreamSession("chat"), StreamSession("images")
    current = CurrentRun()
    seen: list[str] = []
    current.changed.connect(lambda s: seen.append(f"focus {s.route}"))
    current.started.connect(lambda: seen.append("started"))
    current.updated.connect(lambda: seen.append("updated"))
    current.finished.connect(lambda status: seen.append(f"finished {status}"))
    current.anyFinished.connect(lambda status: seen.append(f"any {status}"))
    current.watch(a)
    current.watch(b)
    current.follow(a)
    a.started.emit()
    b.started.emit()  # not in focus: not relayed
    current.follow(b)
    a.updated.emit()
    b.updated.emit()
    a.finished.emit("complete")  # not in focus, but its end is still any end
    b.finished.emit("failed")
    assert current.session is b
    assert seen == [
        "focus chat",
        "started",
        "focus images",
        "updated",
        "any complete",
        "any failed",  # watched before it was followed: that relay was connected first
        "finished failed",
    ]
