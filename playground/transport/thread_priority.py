"""Lowering a worker thread's CPU priority below the UI thread's (Linux; elsewhere nothing)."""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["READER_NICE", "lower_priority"]

# The reader thread's nice value over the UI thread's. On 2 vCPUs under a flood, the UI thread
# shared them with the reader (decoding every read) and the server; at equal priority the kernel
# kept the UI thread off a CPU for whole time slices. Measured with the window at full loopback
# speed (5 runs each, 2-core AMD EPYC): a 5 ms UI timer's p99 lateness 29-50 ms (median 35) at
# nice 0, 21-24 ms (median 23) at nice 4, with the same events per second: the reader keeps up
# in the UI thread's idle time. At 2 the gain was half; at 8 the runs varied more.
READER_NICE = 4


def lower_priority(thread: int, nice: int) -> None:
    """Run the thread with native id ``thread`` at ``nice`` below the process's main (UI)
    thread (never raises; a thread already lower stays so: it cannot be given its priority back
    without privileges). Threads start at their creator's value: one the reader starts is at
    READER_NICE already. On Linux a thread's nice value is its own; elsewhere the call would
    renice the whole process, so it is left out."""
    if sys.platform.startswith("linux") and nice > 0:
        with contextlib.suppress(OSError):
            base = os.getpriority(os.PRIO_PROCESS, os.getpid())  # the main thread's id is the pid
            if os.getpriority(os.PRIO_PROCESS, thread) < base + nice:
                os.setpriority(os.PRIO_PROCESS, thread, base + nice)
