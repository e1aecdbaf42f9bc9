"""The run files' writer: their fsync-and-rename steps on one thread of their own, in order.

A profile of 50 chat runs in one window measured the UI thread blocked ~35 ms per run by the four
fsync calls of a run's start and end (the history index three times, the capture once); a UI
thread must not wait on the disk. One thread for every file keeps each file's writes in the order
they were asked for; ``flush`` waits for all of them (the window's shutdown, a headless run's
end, a reader that wants the finished file), and the process's exit flushes what is left.
"""

from __future__ import annotations

import atexit
import threading
from collections import deque
from collections.abc import Callable, Hashable

__all__ = ["FileWriter", "flush_shared", "shared_writer"]

Job = Callable[[], None]


class FileWriter:
    """Runs write jobs one after another on a thread of its own (``threaded=False``: inline).

    A job submitted with a ``key`` replaces a queued, not yet started job of the same key (the
    index: the last write wins). A job reports its own OSError where its owner shows messages;
    anything else it raises is kept in ``errors``, never lost on the thread.
    """

    def __init__(self, *, threaded: bool = True, name: str = "run-files") -> None:
        self.threaded = threaded
        self.name = name
        self.errors: list[str] = []
        self._jobs: deque[tuple[Hashable | None, Job]] = deque()
        self._cond = threading.Condition()
        self._busy = False
        self._closed = False
        self._thread: threading.Thread | None = None

    def submit(self, job: Job, *, key: Hashable | None = None) -> None:
        """Run ``job`` after every job submitted before it (inline when not threaded or closed)."""
        with self._cond:
            inline = not self.threaded or self._closed
            if not inline:
                if key is not None:
                    for i, (queued, _job) in enumerate(self._jobs):
                        if queued == key:
                            del self._jobs[i]
                            break
                self._jobs.append((key, job))
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                    self._thread.start()
                self._cond.notify_all()
        if inline:
            self._run(job)

    def pending(self) -> bool:
        """Whether a job is queued or running."""
        with self._cond:
            return bool(self._jobs) or self._busy

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every job submitted so far is done; False if ``timeout`` passed first."""
        if threading.current_thread() is self._thread:
            return True  # a job that flushes would wait for itself
        with self._cond:
            return self._cond.wait_for(lambda: not self._jobs and not self._busy, timeout)

    def close(self, timeout: float | None = None) -> bool:
        """Finish every queued job and end the thread; later jobs run inline (nothing is lost)."""
        done = self.flush(timeout)
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return done

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._jobs) or self._closed)
                if not self._jobs:
                    return
                _key, job = self._jobs.popleft()
                self._busy = True
            try:
                self._run(job)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _run(self, job: Job) -> None:
        try:
            job()
        except Exception as exc:  # a job's own OSError is reported by the job; this is the rest
            self.errors.append(f"A run file could not be written ({type(exc).__name__}: {exc}).")


_shared: FileWriter | None = None
_shared_lock = threading.Lock()


def shared_writer() -> FileWriter:
    """The process's one background writer (the window's history and --save-capture use it)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = FileWriter()
            # The last safety net: whatever path the process takes to its exit, nothing queued
            # is lost (the window's shutdown flushes first; this catches the rest).
            atexit.register(_shared.close)
        return _shared


def flush_shared(timeout: float | None = None) -> bool:
    """Wait for the shared writer's queued writes (nothing to wait for if it was never made)."""
    writer = _shared
    return True if writer is None else writer.flush(timeout)
