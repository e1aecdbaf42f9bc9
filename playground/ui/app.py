"""The window's entry point: QApplication + qasync, the theme, the headless contract."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from playground.assets import icon_svg
from playground.protocol.routes import ROUTE_NAMES
from playground.ui.arguments import UsageError, parse_args

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from playground.ui.window.shell import MainWindow

__all__ = ["ICON_PATH", "UsageError", "main", "parse_args", "run_headless"]

ICON_PATH = icon_svg()  # the top-level resources/, installed as package data (playground.assets)
ROUTES = ROUTE_NAMES  # the one registry: protocol/routes


def _settings() -> tuple[QSettings, str | None]:
    """QSettings; a corrupt file is set aside with a message and the program starts."""
    from PySide6.QtCore import QSettings

    override = os.environ.get("PLAYGROUND_SETTINGS")
    settings = (
        QSettings(override, QSettings.Format.IniFormat)
        if override
        else QSettings("playground", "playground")
    )
    path = Path(settings.fileName())
    # Unparsable, or a folder in the file's place (nothing would be remembered, silently).
    if settings.status() == QSettings.Status.FormatError or path.is_dir():
        aside = path.with_name(path.name + f".corrupt-{int(time.time())}")
        with contextlib.suppress(OSError):
            path.replace(aside)
        settings = (
            QSettings(settings.fileName(), QSettings.Format.IniFormat)
            if override
            else QSettings("playground", "playground")
        )
        return settings, f"The settings file was unreadable; it was set aside as {aside.name}."
    return settings, None


def _scratch_copy(settings: QSettings) -> QSettings:
    """A throw-away copy of ``settings`` (a temp ini file, deleted with the process's temp dir)."""
    import tempfile

    from PySide6.QtCore import QSettings

    folder = tempfile.mkdtemp(prefix="playground-settings-")
    copy = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
    for key in settings.allKeys():
        copy.setValue(key, settings.value(key))
    _scratch_dirs.append(folder)
    return copy


_scratch_dirs: list[str] = []


def _app() -> QApplication:
    """The QApplication, named, with the palette of the window's first frame (``_finish_app``
    does the rest once that frame is on screen)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "playground"])
    assert isinstance(app, QApplication)
    app.setApplicationName("Playground")
    app.setOrganizationName("playground")
    app.setDesktopFileName("playground")
    from playground.ui.kit.theme import apply_first_palette

    apply_first_palette(app, _theme_asked())
    app.setQuitOnLastWindowClosed(False)  # the asyncio side decides when to stop (clean shutdown)
    return app


def _theme_asked() -> bool | None:
    # PLAYGROUND_THEME=dark|light overrides the system scheme (docs, screenshots).
    return {"dark": True, "light": False}.get(os.environ.get("PLAYGROUND_THEME", ""))


def _finish_app(app: QApplication) -> None:
    """The icon, the Fusion style and the system scheme's palette (after the first frame: the
    scheme is a ``Qt.ColorScheme``, whose namespace costs 23 ms to build; the icon and the style
    bring enums of their own)."""
    from PySide6.QtGui import QIcon

    if ICON_PATH.is_file():
        app.setWindowIcon(QIcon(str(ICON_PATH)))
    from playground.ui.kit.theme import apply_theme

    apply_theme(app, _theme_asked())


def main(argv: Sequence[str] | None = None) -> int:
    """`playground [FILE] [--route R --prompt TEXT ...]`: 0 when done, 2 on bad arguments."""
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"playground: {exc}", file=sys.stderr)
        return 2
    # The window is built, shown and painted on Qt's own loop; asyncio and qasync (about a
    # tenth of the time to a first frame) load right after that first frame (ui/runtime/lazy.py).
    import PySide6  # noqa: F401 - its import hook, which the next line answers for our modules

    from playground.ui.runtime.pyside_scan import answer_own_modules

    answer_own_modules()
    try:
        with _no_collection():
            app = _app()
            window, warning = _open_window(args)
            # The window appears empty in the theme's colours first, then gets its contents
            # (MainWindow.build: startup time), then asyncio and qasync load.
            _wait_paint(window, empty=True)
            _finish_app(app)
            _build_window(window, args, warning)
            _wait_paint(window, empty=False)
        import asyncio

        import qasync  # type: ignore[import-untyped]

        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        try:
            with loop:
                code: int = loop.run_until_complete(_amain(window, args))
                return code
        finally:
            asyncio.set_event_loop(None)
    finally:
        import shutil

        for folder in _scratch_dirs:
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """No cyclic garbage collection inside: startup allocates a lot and frees almost nothing.

    About sixty young-generation passes (8 ms here) ran before the first frame, each finding
    next to nothing. The collector is switched back on right after it (unless it was off).
    """
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        from playground.ui.runtime import gc_schedule

        if enabled and not gc_schedule.pinned():  # the UI thread's timer collects from now on
            gc.enable()


def _open_window(args: argparse.Namespace) -> tuple[MainWindow, str | None]:
    """The main window, sized as the arguments ask, shown empty (``_build_window`` fills it),
    and what to say about the settings file, if anything."""
    from playground.ui.window.shell import MainWindow

    settings, warning = _settings()
    headless = _headless(args)
    if headless or args.provider:
        # A scripted run reads the remembered provider and models but never changes them.
        settings = _scratch_copy(settings)
    if args.provider:
        settings.setValue("provider", args.provider)
    window = MainWindow(settings, interactive=not headless, build=False)
    from playground.ui.window.remembered import restore_geometry

    # An interactive start comes back as it was left; a size asked for (or a headless run) wins.
    if args.size_given or headless or not restore_geometry(window):
        window.resize(*args.size)
    window.show()
    return window, warning


def _headless(args: argparse.Namespace) -> bool:
    return bool(args.route or args.replay) and bool(
        args.exit_when_done or args.dump_state or args.screenshot or args.dump_during
    )


def _build_window(window: MainWindow, args: argparse.Namespace, warning: str | None) -> None:
    """The window's contents, a settings warning and the proxy, once the empty frame showed."""
    window.build()
    if warning:
        window.statusBar().showMessage(warning, 15000)
        if not window.interactive:  # a headless run has no status bar anyone reads
            print(f"playground: {warning}", file=sys.stderr)
    if args.proxy:
        try:
            address = window.start_proxy(args.proxy, args.proxy_port)
        except OSError as exc:  # the port is taken: the window opens and says so
            window.statusBar().showMessage(f"The proxy did not start: {exc}", 15000)
        else:
            # Where to point the app, also where a terminal user looks (as `playground proxy`).
            print(f"proxy: {address} -> {args.proxy}", flush=True)


FIRST_FRAME_WAIT_MS = 2000  # a platform that never paints a hidden or minimised window
# The empty frame comes 5-20 ms after show() here; a window manager that holds a new window back
# longer than this gets the contents built meanwhile (they were never waiting on it before).
EMPTY_FRAME_WAIT_MS = 300


def _wait_paint(window: MainWindow, *, empty: bool) -> None:
    """Run Qt's own event loop until ``window`` has painted its empty frame (``empty``) or its
    first frame with its contents, or a short while passed."""
    from PySide6.QtCore import QEventLoop, QTimer

    if window.closing or (window.empty_painted if empty else window.painted):
        return  # (a closed window paints no more)
    painted = window.emptyFrame if empty else window.firstFrame
    wait_ms = EMPTY_FRAME_WAIT_MS if empty else FIRST_FRAME_WAIT_MS
    waiter = QEventLoop()
    painted.connect(waiter.quit)
    window.closed.connect(waiter.quit)
    QTimer.singleShot(wait_ms, waiter.quit)
    waiter.exec()  # the connections end with ``waiter``


async def _amain(window: MainWindow, args: argparse.Namespace) -> int:
    import asyncio

    closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on_closed() -> None:
        if not closed.done():
            closed.set_result(None)

    window.closed.connect(on_closed)
    if window.closing:  # closed while the first frame was on its way
        on_closed()
    if window.provider_bar.models_pending:  # asked for before this loop ran
        window.provider_bar.load_models()
    if args.quit_after is not None:
        asyncio.get_running_loop().call_later(max(0.0, args.quit_after), window.close)
    code = 0
    try:
        if args.route or args.replay:
            code = await run_headless(window, args)
            if args.exit_when_done:
                return code
        elif args.file:
            window.open_capture(args.file)
        await closed
    finally:
        window.stop_all()
        await window.shutdown()
        window.close()
        window.deleteLater()
    return code


async def run_headless(window: MainWindow, args: argparse.Namespace) -> int:
    """Send (or replay) on one panel, wait for the end, then screenshot and dump."""
    import asyncio

    from playground.ui.conversation.headless import converse
    from playground.ui.conversation.headless import prepare as prepare_conversation

    series: _CaptureSeries | None = None
    if args.replay:
        from playground.protocol.capture import read_capture

        capture = read_capture(args.replay)
        route = args.route or (capture.route if capture.route in window.panels else None) or "chat"
        panel = window.show_panel(route)
        panel.session.start_replay(capture, args.speed)
    else:
        panel = window.show_panel(args.route)
        if args.prompt is None and panel.conversation is not None and not args.open_conversation:
            # A headless run sends the route's example when no prompt is given (the window's
            # message box starts empty); a preset or a body read below replaces it.
            from playground.ui.panels.editor_parts import DEFAULT_PROMPTS

            panel.editor.set_prompt(DEFAULT_PROMPTS[panel.route])
        if args.open_conversation is not None:  # its turns, system and model; --prompt goes on
            window.kept.open(args.open_conversation)
        if args.preset:  # its model, thread, tools and parameters; the options below go on top
            window.menus.presets.open(args.preset)
            # Headless, the preset's canned results answer its calls as --tool-result does.
            args.tool_results = panel.editor.tools.canned_results() | args.tool_results
        if args.model:
            window.provider_bar.set_model(args.model)
            panel.editor.set_model(args.model)
        if args.prompt is not None:
            if args.route == "transcription":
                if args.prompt.strip():  # an empty path keeps the bundled sample (README)
                    panel.editor.set_file(args.prompt)
            else:
                panel.editor.set_prompt(args.prompt)
        prepare_conversation(panel, args)
        if args.body:
            panel.editor.set_body({**panel.editor.body(), **args.body})
        if args.fault:
            panel.set_fault(args.fault)
        if args.pace:
            panel.set_pace(args.pace)
        if args.save_capture:
            series = _journal_to(panel, args.save_capture)
        if args.open_conversation is None or args.prompts:  # opened alone: shown, not sent
            panel.send()
        if panel.session.state is None and (args.open_conversation is None or args.prompts):
            # The panel refused to send (an unreadable audio file, no provider): say why on
            # stderr too, not only in the dump's error (a run without --dump-state was silent).
            notice = panel.transcript.notice.text if panel.transcript is not None else ""
            reason = (
                panel.said_error() or notice or panel.banner.text
            ) or "the panel did not send the request"
            print(f"playground: nothing was sent: {reason}", file=sys.stderr)
    during = (
        asyncio.ensure_future(_dump_during(panel, *args.dump_during)) if args.dump_during else None
    )
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(args.timeout):
            await panel.session.wait()
            if not args.replay:  # the tool results and the further --prompt turns
                await converse(panel, args)
    if panel.session.is_running:
        panel.stop()
        await panel.session.wait()
    if series is not None:
        series.finish()
    # Let the last frame's updates, the widgets' finish() and any decoding land before the grab.
    # (Sleeping lets Qt run: qasync's loop is Qt's. Never processEvents() from a coroutine:
    # qasync would step other tasks inside this one.)
    await asyncio.sleep(0.15)
    await _settle_widgets(panel)
    if during is not None and not during.done():
        during.cancel()  # no first token came: there is no "during" to dump
    if args.screenshot:
        if window.size().toTuple() != tuple(args.size):
            window.resize(*args.size)  # a dock or the platform changed it: lay it out again
            await asyncio.sleep(0.1)
        Path(args.screenshot).parent.mkdir(parents=True, exist_ok=True)
        _screenshot(window, args.size).save(args.screenshot)
    if args.dump_state:
        await window.provider_bar.models_settled()  # the dump's cache and cost read it
        _write_dump(panel, args.dump_state)
    return 0


def _write_dump(panel: Any, path: str) -> None:
    from playground.protocol.json_out import write_json
    from playground.ui.panels.dump import dump_panel

    # Written as it is encoded, a slice at a time, and a tool call's arguments from their
    # pieces: the whole text, its bytes, or the arguments joined were each one more copy of
    # an 8 MB tool call's arguments (playground bench --only hostile).
    state = dump_panel(panel, pieces=True)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        write_json(state, out.write)


async def _dump_during(panel: Any, ms: int, path: str) -> None:
    """--dump-during: the dump ``ms`` after the first token, while the stream still runs."""
    import asyncio

    while panel.session.run.t_first_token is None:
        await asyncio.sleep(0.005)
    await asyncio.sleep(ms / 1000)
    _write_dump(panel, path)


def _screenshot(window: MainWindow, size: tuple[int, int]) -> Any:
    """The window grabbed at exactly ``size`` (--size), whatever the platform did to it."""
    from PySide6.QtCore import QSize

    pixmap = window.grab()
    if pixmap.size() != QSize(*size):  # smaller than the window's minimum: drawn, then scaled
        from PySide6.QtCore import Qt

        pixmap = pixmap.scaled(
            *size, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    return pixmap


async def _settle_widgets(panel: Any) -> None:
    """Images decode off the UI thread: give them a moment to reach the screen before a grab."""
    import asyncio

    deadline = time.perf_counter() + 2.0
    while time.perf_counter() < deadline:
        busy = False
        for widget in panel.widgets.values():
            pending = getattr(widget, "pending", None)
            with contextlib.suppress(Exception):
                busy = busy or bool(pending() if callable(pending) else pending)
        if not busy:
            break
        await asyncio.sleep(0.05)


def capture_series_path(path: Path, number: int) -> Path:
    """Exchange ``number``'s file beside ``path``: ``run.capture.jsonl`` -> ``run.2.capture.jsonl``
    (the number goes before ``.capture.jsonl``, else before the last suffix)."""
    name = path.name
    for tail in (".capture.jsonl", path.suffix):
        if tail and name.endswith(tail) and len(name) > len(tail):
            return path.with_name(f"{name[: -len(tail)]}.{number}{tail}")
    return path.with_name(f"{name}.{number}")


class _CaptureSeries:
    """--save-capture over a conversation: every exchange is journaled, in order (repeated
    --prompt, --tool-result rounds, a preset's thread), each as its own capture.

    The last exchange ends up at the path asked for, so ``playground export`` of it reproduces
    the request that carried the whole conversation (what --dump-state describes); the ones
    before it stay beside it as ``<name>.1.capture.jsonl``, ``<name>.2…``. A run of one exchange
    is just the path asked for.
    """

    def __init__(self, panel: Any, target: Path) -> None:
        from playground.runs.writer import shared_writer

        self.panel = panel
        self.target = target
        self.writer = shared_writer()  # flushed by the window's shutdown, before the exit
        self.paths: list[Path] = []
        self.closed = False
        panel.session.add_sink_for_next_run(self)

    def __call__(self, spec: Any) -> Any:
        from playground.runs.journal import CaptureJournal

        if self.closed:
            return None
        self.panel.session.add_sink_for_next_run(self)  # the conversation's next exchange too
        path = capture_series_path(self.target, len(self.paths) + 1)
        self.paths.append(path)
        secrets = tuple(spec.secrets())
        return CaptureJournal(path, self.panel.route, secrets=secrets, writer=self.writer)

    def finish(self) -> None:
        """The conversation is over: put its last exchange at the path asked for."""
        from playground.runs.writer import flush_shared

        self.closed = True
        if not self.paths:
            return
        flush_shared(10.0)  # each journal's end (its rename into place) has run
        last = self.paths[-1]
        with contextlib.suppress(OSError):
            last.replace(self.target)


def _journal_to(panel: Any, path: str) -> _CaptureSeries:
    """--save-capture: each exchange is journaled as it streams (playground-capture/1)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    return _CaptureSeries(panel, target)
