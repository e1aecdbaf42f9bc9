"""AudioView: PCM played as it arrives, a live waveform, duration, Save as WAV"""

from __future__ import annotations

import bisect
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from playground.protocol.state import AudioState, StreamState

from .audio_player import NO_AUDIO_NOTE, NoAudioOutput, PcmPlayer, default_audio_output
from .wav import pcm_to_wav_bytes, wav_info
from .waveform import WaveformWidget

__all__ = ["AudioView"]

_EXT = {"mp3": "mp3", "opus": "opus", "aac": "aac", "flac": "flac", "wav": "wav", "pcm": "wav"}


class AudioView(QWidget):
    """Speech audio (docs/protocol.md §6: ``pcm`` is raw 24 kHz s16le mono, no header)."""

    itemActivated = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, autoplay: bool = True) -> None:
        super().__init__(parent)
        self.autoplay = autoplay
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.waveform = WaveformWidget(self)
        self.waveform.mouseReleaseEvent = self._wave_clicked  # type: ignore[method-assign]
        layout.addWidget(self.waveform, 1)
        row = QHBoxLayout()
        self.play_button = QPushButton("▶ Play", self)
        self.play_button.clicked.connect(self.play_from_start)
        row.addWidget(self.play_button)
        self.stop_button = QPushButton("■ Stop", self)
        self.stop_button.clicked.connect(self.stop)
        row.addWidget(self.stop_button)
        self.duration_label = QLabel(self)
        # Its idle sentence is long: it wraps rather than set the panel's minimum width (a
        # 1024 px window must hold the panel and the inspector side by side).
        self.duration_label.setWordWrap(True)
        row.addWidget(self.duration_label, 1)
        self.save_button = QPushButton("Save as WAV…", self)
        self.save_button.clicked.connect(self._save_clicked)
        row.addWidget(self.save_button)
        layout.addLayout(row)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #8a5a00;")
        self.note.hide()
        layout.addWidget(self.note)
        layout.addStretch(1)
        self._player: PcmPlayer | None = None
        self._media: Any = None  # QMediaPlayer for whole-body formats
        self._media_out: Any = None
        self._temp: Path | None = None
        self.reset()

    # -- contract ------------------------------------------------------------------------------

    def reset(self) -> None:
        self.stop()
        self._player = None
        self._audio: AudioState | None = None
        self._fed = 0  # bytes of state.audio.data taken so far
        self._no_output = False
        self.waveform.clear()
        self.note.hide()
        self.duration_label.setText("No audio yet — speech plays here as it arrives.")
        self._set_enabled(False)

    def refresh(self, state: StreamState) -> None:
        audio = state.audio
        if audio is None:
            return
        if audio is not self._audio:
            if self._audio is not None:
                self.reset()
            self._audio = audio
        data = audio.data
        if len(data) <= self._fed:
            return
        if self.is_pcm:
            new = bytes(data[self._fed :])
            if audio.sample_width == 2:  # the envelope reads s16le (interleaved channels pooled)
                self.waveform.add(new)
            if self.autoplay:
                self._play_live(new)
        self._fed = len(data)
        self._set_enabled(True)
        self._update_label()

    def finish(self, state: StreamState) -> None:
        self.refresh(state)
        if self._audio is not None and self.is_pcm:
            self.waveform.flush()
        self._update_label()

    def highlight_item(self, item: int) -> None:
        """Shade the stretch of audio that timeline item ``item`` carried."""
        audio = self._audio
        if audio is None or not self.is_pcm:
            return
        frame = audio.channels * audio.sample_width
        bucket = self.waveform.envelope.bucket * frame
        origins = audio.origins
        for i, (offset, origin) in enumerate(origins):
            if origin == item:
                end = origins[i + 1][0] if i + 1 < len(origins) else len(audio.data)
                self.waveform.mark((offset / bucket, end / bucket))
                return
        self.waveform.mark(None)

    def has_content(self) -> bool:
        return self._audio is not None and len(self._audio.data) > 0

    # -- queries -------------------------------------------------------------------------------

    @property
    def is_pcm(self) -> bool:
        return self._audio is not None and self._audio.format in (None, "pcm")

    @property
    def seconds(self) -> float:
        if self._audio is None:
            return 0.0
        if self.is_pcm:
            return self._audio.seconds
        info = wav_info(self._audio.data) if self._audio.format == "wav" else None
        return info[3] if info else 0.0

    @property
    def no_output(self) -> bool:
        return self._no_output

    # -- actions -------------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """PCM as a WAV file; any other format as the bytes it came in."""
        audio = self._audio
        if audio is None:
            return
        if self.is_pcm:
            data = pcm_to_wav_bytes(
                audio.data, audio.sample_rate, audio.channels, audio.sample_width
            )
        else:
            data = bytes(audio.data)
        Path(path).write_bytes(data)

    def play_from_start(self) -> None:
        audio = self._audio
        if audio is None or not audio.data:
            return
        self.stop()
        if self.is_pcm:
            self._play_live(bytes(audio.data))
        else:
            self._play_media(audio)

    def stop(self) -> None:
        if self._player is not None:
            self._player.stop()
            self._player.deleteLater()
            self._player = None
        if self._media is not None:
            self._media.stop()

    # -- internals -----------------------------------------------------------------------------

    def _play_live(self, data: bytes) -> None:
        if self._no_output:
            return
        if self._player is None:
            audio = self._audio
            try:
                self._player = PcmPlayer(
                    audio.sample_rate if audio else 24000,
                    audio.channels if audio else 1,
                    audio.sample_width if audio else 2,
                    self,
                )
            except NoAudioOutput:
                self._show_no_output()
                return
        self._player.feed(data)

    def _play_media(self, audio: AudioState) -> None:
        device = default_audio_output()
        if device is None:
            self._show_no_output()
            return
        try:
            from PySide6.QtCore import QUrl
            from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer

            ext = _EXT.get(audio.format or "", audio.format or "bin")
            with tempfile.NamedTemporaryFile(suffix=f".{ext}", delete=False) as f:
                f.write(bytes(audio.data))
                self._temp = Path(f.name)
            if self._media is None:
                self._media = QMediaPlayer(self)
                self._media_out = QAudioOutput(device, self)
                self._media.setAudioOutput(self._media_out)
            self._media.setSource(QUrl.fromLocalFile(str(self._temp)))
            self._media.play()
        except Exception:
            self.note.setText(f"This machine cannot play {audio.format} audio — Save it instead.")
            self.note.show()

    def _show_no_output(self) -> None:
        self._no_output = True
        self.note.setText(NO_AUDIO_NOTE)
        self.note.show()
        self.play_button.setEnabled(False)

    def _set_enabled(self, on: bool) -> None:
        self.play_button.setEnabled(on and not self._no_output)
        self.stop_button.setEnabled(on)
        self.save_button.setEnabled(on)
        fmt = self._audio.format if self._audio else None
        self.save_button.setText("Save as WAV…" if fmt in (None, "pcm") else f"Save {fmt}…")

    def _update_label(self) -> None:
        audio = self._audio
        if audio is None:
            return
        size = len(audio.data)
        if self.is_pcm:
            rate = audio.sample_rate / 1000
            channels = "mono" if audio.channels == 1 else f"{audio.channels} ch"
            kind = "WAV stream" if getattr(audio, "container", None) == "wav" else "PCM"
            text = f"{audio.seconds:.2f} s · {rate:g} kHz {channels} {kind} · {size:,} B"
        else:
            info = wav_info(audio.data) if audio.format == "wav" else None
            if info:
                text = f"{info[3]:.2f} s · {info[0] / 1000:g} kHz WAV · {size:,} B"
            else:
                text = f"{audio.format} audio · {size:,} B (whole body; duration unknown)"
        self.duration_label.setText(text)

    def _save_clicked(self) -> None:
        fmt = self._audio.format if self._audio else None
        ext = _EXT.get(fmt or "pcm", fmt or "bin")
        path, _ = QFileDialog.getSaveFileName(self, "Save audio", f"speech.{ext}")
        if path:
            self.save(path)

    def _wave_clicked(self, event: Any) -> None:
        # Linked views: a click on the waveform names the event that carried that moment.
        audio = self._audio
        if audio is None or not audio.origins or not self.is_pcm or self.waveform.width() <= 0:
            return
        fraction = max(0.0, min(1.0, event.position().x() / self.waveform.width()))
        offset = int(fraction * len(audio.data))
        i = bisect.bisect_right(audio.origins, (offset, float("inf"))) - 1
        if i >= 0:
            self.itemActivated.emit(audio.origins[i][1])
