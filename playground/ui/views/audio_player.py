"""PcmPlayer: plays raw PCM as it arrives through QtMultimedia; a clear error when it cannot."""

from __future__ import annotations

import os
from typing import Any

from PySide6.QtCore import QObject, QTimer

__all__ = ["NO_AUDIO_NOTE", "NoAudioOutput", "PcmPlayer", "default_audio_output"]

NO_AUDIO_NOTE = "No audio output on this machine — the audio is kept; Save as WAV"


class NoAudioOutput(RuntimeError):
    """This machine cannot play the audio (no device, unsupported format, a backend failure)."""


def default_audio_output() -> Any:
    """The default QAudioDevice, or None when there is none (tests and headless runs patch this).

    ``PLAYGROUND_NO_AUDIO=1`` turns playback off (CI, screenshots, the headless contract).
    """
    if os.environ.get("PLAYGROUND_NO_AUDIO"):
        return None
    try:
        # Imported lazily: QtMultimedia costs startup time and the first frame does not need it.
        from PySide6.QtMultimedia import QMediaDevices
    except ImportError:
        return None
    device = QMediaDevices.defaultAudioOutput()
    if device is None or device.isNull():
        return None
    return device


class PcmPlayer(QObject):
    """Push-mode QAudioSink fed from a queue; ``feed`` never blocks, a timer tops the sink up."""

    def __init__(
        self,
        sample_rate: int = 24000,
        channels: int = 1,
        sample_width: int = 2,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        device = default_audio_output()
        if device is None:
            raise NoAudioOutput(NO_AUDIO_NOTE)
        try:
            from PySide6.QtMultimedia import QAudioFormat, QAudioSink

            fmt = QAudioFormat()
            fmt.setSampleRate(sample_rate)
            fmt.setChannelCount(channels)
            fmt.setSampleFormat(
                QAudioFormat.SampleFormat.Int16
                if sample_width == 2
                else QAudioFormat.SampleFormat.UInt8
            )
            if not device.isFormatSupported(fmt):
                raise NoAudioOutput(NO_AUDIO_NOTE)
            self._sink = QAudioSink(device, fmt, self)
            self._io = self._sink.start()
        except NoAudioOutput:
            raise
        except Exception as exc:  # a backend failure must never crash the window
            raise NoAudioOutput(NO_AUDIO_NOTE) from exc
        if self._io is None:
            raise NoAudioOutput(NO_AUDIO_NOTE)
        self._pending = bytearray()
        self._frame = channels * sample_width
        self._timer = QTimer(self)
        self._timer.setInterval(15)
        self._timer.timeout.connect(self._pump)

    def feed(self, data: bytes | bytearray) -> None:
        self._pending += data
        self._pump()
        if self._pending and not self._timer.isActive():
            self._timer.start()

    @property
    def queued(self) -> int:
        return len(self._pending)

    def _pump(self) -> None:
        try:
            free = self._sink.bytesFree()
            n = min(free - free % self._frame, len(self._pending))
            if n > 0:
                written = self._io.write(bytes(self._pending[:n]))
                if written > 0:
                    del self._pending[:written]
        except Exception:
            self._pending.clear()  # the device went away: keep the window alive
        if not self._pending:
            self._timer.stop()

    def stop(self) -> None:
        self._timer.stop()
        self._pending.clear()
        try:
            self._sink.stop()
        except Exception:
            pass
