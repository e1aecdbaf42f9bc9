"""GUI test fixtures: a qasync loop per test, one simulator per session, a window on it."""

from __future__ import annotations

import asyncio
import gc
import os
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from freeze_watch import FreezeWatch

T = TypeVar("T")


@pytest.fixture(scope="session", autouse=True)
def _isolated_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """History and settings go to a temp folder, never the user's."""
    root = tmp_path_factory.mktemp("playground-data")
    old = {k: os.environ.get(k) for k in ("PLAYGROUND_DATA_DIR", "PLAYGROUND_SETTINGS")}
    os.environ["PLAYGROUND_DATA_DIR"] = str(root / "data")
    os.environ["PLAYGROUND_SETTINGS"] = str(root / "settings.ini")
    yield
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def sim() -> Iterator[Any]:
    """The real simulator on 127.0.0.1, a free port, shared by the session's tests."""
    from playground.sim.server import SimServer

    server = SimServer("127.0.0.1", 0).start()
    yield server
    server.stop()


class Loop:
    """A qasync loop (asyncio on Qt's loop) and helpers to run coroutines on it with a deadline."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def run(self, coro: Awaitable[T], timeout: float = 30.0) -> T:
        async def bounded() -> T:
            return await asyncio.wait_for(coro, timeout)

        return self.loop.run_until_complete(bounded())

    def do(self, fn: Callable[..., T], *args: Any) -> T:
        """Call ``fn`` from inside the running loop, as the app's own handlers always are.

        Between two ``run`` calls the asyncio loop is stopped while Qt may still dispatch its
        callbacks; starting or cancelling a stream there would run anyio's handlers loop-less.
        """

        async def call() -> T:
            result = fn(*args)
            await asyncio.sleep(0)
            return result

        return self.run(call())

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 15.0) -> None:
        async def poll() -> None:
            while not predicate():
                await asyncio.sleep(0.01)

        self.run(poll(), timeout)

    def sleep(self, seconds: float) -> None:
        self.run(asyncio.sleep(seconds), seconds + 5)


def _test_loop_class() -> type:
    import qasync  # type: ignore[import-untyped]

    class TestLoop(qasync.QEventLoop):  # type: ignore[misc]
        """qasync's loop, minus the Qt event pass it runs after each ``run_until_complete``.

        qasync processes pending Qt events once more after the loop stopped, with no running
        asyncio loop set: asyncio callbacks queued then (anyio's cancel-scope retries while a
        cancelled httpx stream winds down) fail with "no running event loop". The app runs one
        loop for its whole life and never sees this; tests start and stop it many times, so
        leftovers wait for the next ``run`` instead, where the loop is running.
        """

        def run_until_complete(self, future: Any) -> Any:
            if self.is_running():
                raise RuntimeError("Event loop already running")
            future = asyncio.ensure_future(future, loop=self)

            def stop(_f: Any) -> None:
                self.stop()

            future.add_done_callback(stop)
            try:
                self.run_forever()
            finally:
                future.remove_done_callback(stop)
            if not future.done():
                raise RuntimeError("Event loop stopped before Future completed.")
            return future.result()

    return TestLoop


@pytest.fixture(autouse=True)
def collector_on_ui_thread(qapp: Any) -> None:
    """Every GUI test with the collector pinned to the UI thread, as the window has it, also
    those that never run a loop: a collection on a server thread (the simulator's) destroys
    Qt wrappers there, and a CI run hung in one (see ``gc_schedule._unpin``)."""
    from playground.ui.runtime import gc_schedule

    gc_schedule.collect_on_ui_thread()


@pytest.fixture
def qloop(qapp: Any) -> Iterator[Loop]:
    """pytest-qt has no qasync integration: one QEventLoop per test, set current, closed cleanly."""
    from playground.ui.runtime import gc_schedule

    qapp.setQuitOnLastWindowClosed(False)  # as the app does: asyncio decides when to stop
    gc_schedule.collect_on_ui_thread()  # as the window does: threads run here, Qt objects die
    loop = _test_loop_class()(qapp)
    asyncio.set_event_loop(loop)
    helper = Loop(loop)
    try:
        yield helper
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
        asyncio.set_event_loop(None)
        gc.collect()


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def window(qloop: Loop, sim: Any, settings: Any, qtbot: Any) -> Iterator[Any]:
    """The real MainWindow on the session's simulator, fast pace; shut down cleanly afterwards."""
    from playground.ui.window.shell import MainWindow

    win = MainWindow(settings, simulator_url=sim.base_url, start_simulator=False, interactive=False)
    from tests.ui.panel_helpers import with_example_prompts

    for panel in win.panels.values():
        panel.set_pace("fast")
    with_example_prompts(win)
    win.show()
    yield win
    win._closing = True
    qloop.run(win.shutdown(), 10)
    win.close()
    win.deleteLater()


@pytest.fixture
def send_and_wait(qloop: Loop) -> Callable[..., str]:
    """Press Send on a panel and wait until its stream ended; returns the final status."""

    def run(panel: Any, timeout: float = 30.0) -> str:
        t0 = time.perf_counter()

        async def send_then_wait() -> str:
            # Send and wait in one loop run, as in the app: stopping a qasync loop while httpx
            # (anyio) is mid-connect would run its cancel-scope callbacks outside the loop.
            panel.send()
            await asyncio.sleep(0)
            result: str = await panel.session.wait()
            return result

        status = qloop.run(send_then_wait(), timeout)
        # The last frame's coalesced update and the finish() calls land on the next loop turns.
        qloop.sleep(0.05)
        assert time.perf_counter() - t0 < timeout
        return status

    return run


@pytest.fixture
def freeze_watch() -> Iterator[FreezeWatch]:
    """A UI-thread freeze detector (a 20 ms Qt timer's ticks); stopped after the test."""
    watch = FreezeWatch()
    yield watch
    watch.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Empty the clipboard before the process exits: the offscreen platform's clipboard still
    holding data at exit crashes the interpreter (a segfault after every test passed)."""
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is not None:
        QApplication.clipboard().clear()
