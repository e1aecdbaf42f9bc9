"""Worker threads run below the UI thread: lower_priority sets a thread's nice value, once."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from playground.transport.thread_priority import READER_NICE, lower_priority

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice")


def _in_thread(*steps: int) -> list[int]:
    """Lower a fresh thread by each of ``steps`` in turn; its nice value after each."""
    seen: list[int] = []

    def run() -> None:
        me = threading.get_native_id()
        for nice in steps:
            lower_priority(me, nice)
            seen.append(os.getpriority(os.PRIO_PROCESS, me))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen


@linux_only
def test_a_thread_runs_that_much_below_the_main_thread_and_the_main_thread_is_untouched() -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert _in_thread(READER_NICE) == [base + READER_NICE]
    assert os.getpriority(os.PRIO_PROCESS, os.getpid()) == base


@linux_only
def test_a_thread_already_lower_stays_lower_and_nothing_raises() -> None:
    base = os.getpriority(os.PRIO_PROCESS, os.getpid())
    # Raising a thread back needs privileges: asked for less, it keeps what it has.
    assert _in_thread(6, 2, 0) == [base + 6, base + 6, base + 6]
    lower_priority(2**31 - 1, 3)  # no such thread: nothing happens
