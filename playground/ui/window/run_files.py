"""The File menu's work on the current panel's run: open a capture, save, export, bundle it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.runs.record import RunRecord
    from playground.ui.runtime.session import StreamSession
    from playground.ui.window.shell import MainWindow

__all__ = ["CAPTURE_FILTER", "RunFiles"]

CAPTURE_FILTER = "Captures (*.jsonl *.capture *.sse *.txt *.log);;All files (*)"


_AUDIO_SUFFIXES = (".wav", ".mp3", ".flac", ".ogg", ".m4a", ".webm")


class RunFiles:
    """Saves, exports and bundles the current panel's run; every outcome is one status line."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.last_message = ""

    def session(self) -> StreamSession:
        return self.window.current_panel().session

    def say(self, message: str, ms: int = 8000) -> None:
        self.last_message = message
        self.window.statusBar().showMessage(message, ms)

    def open_capture(self, path: str) -> None:
        """Open a capture or raw `curl -N` output into the right panel and replay it instantly."""
        from playground.protocol.capture import capture_route, read_capture

        try:
            capture = read_capture(path)
        except Exception as exc:
            message = f"Cannot open {Path(path).name}: {exc}"
            self.window.statusBar().showMessage(message, 10000)
            if self.window.interactive:
                from PySide6.QtWidgets import QMessageBox

                QMessageBox.warning(self.window, "Cannot open the capture", message)
            return
        route = capture_route(capture)
        if route is None or route not in self.window.panels:
            route = self.window.current_panel().route
        panel = self.window.show_panel(route)
        self.window.show_request_of(panel, capture)
        panel.session.start_replay(capture, 0.0)
        self.window.statusBar().showMessage(f"Opened {Path(path).name}", 6000)

    def open_dropped(self, path: str) -> None:
        """A file dropped on the window: an audio file on Transcription is its input, anything
        else a capture (or raw `curl -N` output) to open."""
        panel = self.window.current_panel()
        if panel.route == "transcription" and Path(path).suffix.lower() in _AUDIO_SUFFIXES:
            panel.editor.set_file(path)
        else:
            self.open_capture(path)

    def status(self) -> str | None:
        state = self.session().state
        return state.status if state is not None else None

    def secrets(self) -> tuple[str, ...]:
        """The key of the current provider, scrubbed from bundles as a last guard."""
        from playground.transport.secrets import get_key

        provider = self.window.provider_bar.provider()
        try:
            key = None if provider.builtin else get_key(provider)
        except Exception:  # no keyring backend: there is no key to scrub either
            key = None
        return (key,) if key else ()

    def has_run(self) -> bool:
        if not self.session().run.has_run():
            self.say("There is no run on this panel yet: send a prompt or open a capture first.")
            return False
        return True

    def open_capture_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # a dialog: its class loads when first used

        path, _ = QFileDialog.getOpenFileName(self.window, "Open a capture", "", CAPTURE_FILTER)
        if path:
            self.window.open_capture(path)

    def save_capture(self, path: str | None = None) -> Path | None:
        """Save the current panel's run as a capture file (asks where unless ``path`` is given)."""
        from playground.runs.record import write_capture

        return self._write(
            path,
            ("Save the run as a capture", "{route}.capture.jsonl", "Captures (*.jsonl)"),
            lambda run, to: write_capture(run, to, self.status(), secrets=self.secrets()),
            (OSError, ValueError),
            ("The capture was not saved: {error}", "Saved the run as {name}."),
        )

    def export(self, fmt: str) -> str | None:
        """The current run's request as curl/python/typescript: copied, and shown in a dialog."""
        from playground.runs.export import export_request
        from playground.ui.kit.export_dialog import show_export

        if not self.has_run():
            return None
        run = self.session().run
        route = run.route
        if route not in self.window.panels:
            route = self.window.current_panel().route
        try:
            code = str(export_request(run.request_json(), route, fmt))
        except Exception as exc:  # ExportError: a replayed raw capture has no request
            self.say(f"The request cannot be exported: {exc}")
            return None
        show_export(self.window, fmt, code, interactive=self.window.interactive)
        self.say(f"The request as {fmt} is on the clipboard.")
        return code

    def bundle(self, path: str | None = None) -> Path | None:
        from playground.runs.record import bundle_run

        return self._write(
            path,
            ("Save a bug-report bundle", "{route}-bug-report.zip", "Zip (*.zip)"),
            lambda run, to: bundle_run(run, to, status=self.status(), secrets=self.secrets()),
            # A bundle is a convenience: any failure is one sentence, no traceback.
            (Exception,),
            ("The bundle was not written: {error}", "Wrote the bug-report bundle {name}."),
        )

    def _write(
        self,
        path: str | None,
        ask: tuple[str, str, str],
        write: Callable[[RunRecord, str], Path],
        failures: tuple[type[Exception], ...],
        said: tuple[str, str],
    ) -> Path | None:
        """The current run written to ``path``, or where the user says (``ask``: the dialog's
        title, suggested name and filter); one sentence either way (``said``)."""
        from playground.ui.kit.save_prompt import ask_save_path

        if not self.has_run():
            return None
        run = self.session().run
        title, name, file_filter = ask
        target = ask_save_path(
            self.window,
            path,
            self.window.interactive,
            title,
            name.format(route=run.route),
            file_filter,
        )
        if target is None:
            return None
        try:
            out = write(run, target)
        except failures as exc:
            self.say(said[0].format(error=exc))
            return None
        self.say(said[1].format(name=Path(out).name))
        return out
