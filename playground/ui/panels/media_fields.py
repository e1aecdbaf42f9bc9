"""The request form's fields of the routes without a conversation (Images, Speech, Transcription,
Music), each declared once as a ``Field`` (fields.py gathers every route's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QStyle,
    QWidget,
)

from playground.assets import sample_wav
from playground.ui.panels.editor_parts import (
    IMAGE_FORMATS,
    IMAGE_QUALITY,
    IMAGE_SIZES,
    SPEECH_FORMATS,
    VOICES,
    DropLineEdit,
    select_value,
)
from playground.ui.panels.field import Field, choice

if TYPE_CHECKING:
    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["MEDIA_FIELDS"]


# ---- makers -----------------------------------------------------------------------------------
def _prompt(placeholder: str, height: int) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        box = editor.make_prompt(placeholder, height)
        box.setMaximumHeight(220)
        return box

    return make


def _combo(items: tuple[str, ...], tip: str = "") -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        combo = editor._combo(items)
        if tip:
            combo.setToolTip(tip)
        return combo

    return make


def _partial_images(editor: RequestEditor) -> QWidget:
    spin = QSpinBox()
    spin.setRange(0, 3)
    spin.setValue(2)
    spin.valueChanged.connect(editor._form_edited)
    return spin


def _image_input(editor: RequestEditor) -> QWidget:
    from playground.ui.panels.image_input import ImageInput

    return ImageInput()  # with an image, Send edits it (image_input.py)


def _speed(editor: RequestEditor) -> QWidget:
    spin = QDoubleSpinBox()
    spin.setRange(0.25, 4.0)
    spin.setSingleStep(0.25)
    spin.setValue(1.0)
    spin.valueChanged.connect(editor._form_edited)
    return spin


def _audio_file(editor: RequestEditor) -> QWidget:
    line = DropLineEdit()
    line.setPlaceholderText("Drop an audio file here, or Browse…")
    line.setText(str(sample_wav()))  # spoken by the simulator itself
    line.textChanged.connect(editor._form_edited)
    return line


def _audio_file_row(editor: RequestEditor, line: QWidget) -> QWidget:
    browse = QPushButton("Browse…")
    browse.setIcon(editor.style().standardIcon(QStyle.StandardPixmap.SP_DirOpenIcon))
    browse.clicked.connect(editor._browse)
    row_widget = QWidget()
    row = QHBoxLayout(row_widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(line, 1)
    row.addWidget(browse)
    return row_widget


def _language(editor: RequestEditor) -> QWidget:
    line = QLineEdit()
    line.setPlaceholderText("auto (e.g. en)")
    line.textChanged.connect(editor._form_edited)
    return line


def _sample_hint(editor: RequestEditor) -> QWidget:
    hint = QLabel("The sample file was spoken by the simulator; it transcribes it back.")
    hint.setWordWrap(True)
    hint.setStyleSheet("color: gray;")
    return hint


def _duration(editor: RequestEditor) -> QWidget:
    spin = QDoubleSpinBox()
    spin.setRange(1.0, 600.0)
    spin.setValue(8.0)
    spin.setSuffix(" s")
    spin.valueChanged.connect(editor._form_edited)
    return spin


# ---- readers and fillers ----------------------------------------------------------------------
def _read_prompt(box: Any, p: RequestParams) -> None:
    p.prompt = box.toPlainText()


def _fill_prompt(box: Any, p: RequestParams) -> None:
    box.setPlainText(p.prompt or "")


def _read_speech_format(combo: Any, p: RequestParams) -> None:
    fmt = combo.currentData()
    p.response_format = fmt
    # Seed "Streaming": only pcm streams as SSE; other formats come in one piece.
    p.stream_format = "sse" if fmt == "pcm" else "audio"


def _fill_duration(spin: Any, p: RequestParams) -> None:
    if p.duration:
        spin.setValue(p.duration)


def _set_speed(p: RequestParams, speed: float) -> None:
    p.speed = speed if speed != 1.0 else None


MEDIA_FIELDS: dict[str, tuple[Field, ...]] = {
    "images": (
        Field("prompt", "Prompt", _prompt("Describe the picture", 70), _read_prompt, _fill_prompt),
        choice("image_size", "Size", "size", _combo(IMAGE_SIZES)),
        choice("quality", "Quality", "quality", _combo(IMAGE_QUALITY)),
        Field(
            "partial_images",
            "Partial images",
            _partial_images,
            lambda w, p: setattr(p, "partial_images", w.value()),
            lambda w, p: w.setValue(p.partial_images or 0),
        ),
        choice(
            "output_format", "Format", "output_format", _combo(IMAGE_FORMATS), shown_unset="png"
        ),
        Field("image_input", "Edit image", _image_input),
    ),
    "speech": (
        Field(
            "prompt",
            "Text",
            _prompt("Text to speak", 90),
            lambda w, p: setattr(p, "input", w.toPlainText()),
            lambda w, p: w.setPlainText(p.input or ""),
        ),
        Field(
            "voice",
            "Voice",
            _combo(VOICES),
            lambda w, p: setattr(p, "voice", w.currentData()),
            lambda w, p: select_value(w, p.voice or "alloy"),
        ),
        Field(
            "speech_format",
            "Format",
            _combo(SPEECH_FORMATS, "Only pcm is streamed as it is made (seed 'Streaming')"),
            _read_speech_format,
            lambda w, p: select_value(w, p.response_format or "pcm"),
        ),
        Field(
            "speed",
            "Speed",
            _speed,
            lambda w, p: _set_speed(p, w.value()),
            lambda w, p: w.setValue(p.speed or 1.0),
        ),
    ),
    "transcription": (
        Field("file", "Audio file", _audio_file, row=_audio_file_row),
        Field(
            "language",
            "Language",
            _language,
            lambda w, p: setattr(p, "language", w.text().strip() or None),
            lambda w, p: w.setText(p.language or ""),
        ),
        Field("", "", _sample_hint),
    ),
    "music": (
        Field("prompt", "Prompt", _prompt("Describe the music", 70), _read_prompt, _fill_prompt),
        Field(
            "duration",
            "Length",
            _duration,
            lambda w, p: setattr(p, "duration", w.value()),
            _fill_duration,
        ),
    ),
}
