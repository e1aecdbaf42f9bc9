"""MusicView: a music job's status and progress, the song playing while it renders."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from playground.protocol.state import StreamState

from .audio_view import AudioView

__all__ = ["MusicView"]


class MusicView(QWidget):
    """Music is an async job whose ``stream_url`` can be heard while it renders (seed page).

    The job's status and progress come from ``set_job`` (the panel polls the job) or, when the
    decoder keeps them, from ``state.job`` (a dict with ``status`` / ``progress`` 0–1 or 0–100);
    without either, progress is the seconds heard over ``expected_seconds``.
    """

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.status_label = QLabel(self)
        self.status_label.setWordWrap(True)  # a narrow window wraps it rather than widening
        row.addWidget(self.status_label, 1)
        self.progress = QProgressBar(self)
        self.progress.setRange(0, 100)
        row.addWidget(self.progress, 2)
        layout.addLayout(row)
        self.audio = AudioView(self)
        self.audio.itemActivated.connect(self.itemActivated)
        layout.addWidget(self.audio, 1)
        self.expected_seconds: float | None = None
        self._job_status: str | None = None
        self._job_progress: float | None = None
        self.reset()

    def reset(self) -> None:
        self.audio.reset()
        self._job_status = None
        self._job_progress = None
        self._reported: tuple[Any, ...] = ()
        self.progress.setValue(0)
        self.status_label.setText("No job yet — describe a song and press Send.")

    def follow_job(self, job: object) -> None:
        """The polled job's JSON (status, progress, duration_seconds), whatever shape it came in."""
        if not isinstance(job, dict):
            return
        progress, status = job.get("progress"), job.get("status")
        duration = job.get("duration_seconds")
        if isinstance(duration, int | float):
            self.expected_seconds = float(duration)
        self.set_job(
            status if isinstance(status, str) else None,
            float(progress) if isinstance(progress, int | float) else None,
        )

    def set_job(self, status: str | None, progress: float | None = None) -> None:
        """The job's status word (queued / rendering / completed / failed) and progress 0–1."""
        self._job_status = status
        if progress is not None and progress > 1:
            progress = progress / 100  # a percentage
        self._job_progress = progress
        self._show()

    def refresh(self, state: StreamState) -> None:
        # What the stream reported, taken when it changes only: a poll's newer word (set_job)
        # is not undone every frame. The job's phase as last reported (music.job.* events) wins
        # over the job dict, which is the one the POST answered: "queued" while it rendered.
        job: Any = getattr(state, "job", None)
        posted = (job.get("status"), job.get("progress")) if isinstance(job, dict) else (None, None)
        reported = (*posted, getattr(state, "job_status", None), getattr(state, "progress", None))
        if reported != self._reported:
            self._reported = reported
            for status, progress in (posted, reported[2:]):
                if isinstance(status, str) and status:
                    self._job_status = status
                if isinstance(progress, int | float):
                    self._job_progress = progress / 100 if progress > 1 else float(progress)
        self.audio.refresh(state)
        if self._job_status is None and state.audio is not None:
            self._job_status = "rendering"
        self._show()

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        self.audio.finish(state)
        if state.status == "complete":
            self._job_status = "completed"
            self._job_progress = 1.0
        elif self._job_status in (None, "rendering", "queued"):
            self._job_status = state.status
        self._show()

    def highlight_item(self, item: int) -> None:
        self.audio.highlight_item(item)

    def has_content(self) -> bool:
        return self.audio.has_content()

    def _show(self) -> None:
        progress = self._job_progress
        if progress is None and self.expected_seconds:
            progress = min(1.0, self.audio.seconds / self.expected_seconds)
        if progress is not None:
            self.progress.setRange(0, 100)
            self.progress.setValue(round(max(0.0, min(1.0, progress)) * 100))
        elif self._job_status in ("queued", "rendering", "in_progress"):
            self.progress.setRange(0, 0)  # busy indicator: progress unknown
        heard = f" · {self.audio.seconds:.1f} s heard" if self.audio.has_content() else ""
        if self._job_status:
            self.status_label.setText(f"Job: {self._job_status}{heard}")
