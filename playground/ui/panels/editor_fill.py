"""Filling the request editor's form from RequestParams (a JSON body read back into the fields)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from playground.protocol.routes import route_of

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox

    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["select_value", "show_params"]


def show_params(editor: RequestEditor, p: RequestParams) -> list[dict[str, Any]] | None:
    """Show ``p`` in ``editor``'s form (the caller keeps the raw view from echoing it back);
    on a conversational route, returns the earlier turns the form does not show."""
    r = editor.route
    earlier: list[dict[str, Any]] | None = None
    if route_of(r).conversational:
        editor.system.setPlainText(p.system or "")
        turns = list(p.messages)
        last = turns.pop() if turns and turns[-1].get("role") == "user" else None
        earlier = turns
        text = p.prompt if p.prompt is not None else (last or {}).get("content", "")
        editor.prompt.setPlainText(text if isinstance(text, str) else json.dumps(text))
        editor.history_note.setVisible(bool(turns))
        editor.history_note.setText(f"+ {len(turns)} earlier turn(s) from the JSON body")
        editor.chat_form.show(p)  # sampling, reasoning, response format, the Advanced group
        if p.tools:
            editor.tools.show_tools(p.tools, p.tool_choice)
        elif r == "chat":
            editor.tools.set_sending(False)
        if r == "chat":
            editor.include_usage.setChecked(bool(p.include_usage))
    elif r == "images":
        editor.prompt.setPlainText(p.prompt or "")
        select_value(editor.image_size, p.size or "")
        select_value(editor.quality, p.quality or "")
        editor.partial_images.setValue(p.partial_images or 0)
        select_value(editor.output_format, p.output_format or "png")
    elif r == "speech":
        editor.prompt.setPlainText(p.input or "")
        select_value(editor.voice, p.voice or "alloy")
        select_value(editor.speech_format, p.response_format or "pcm")
        editor.speed.setValue(p.speed or 1.0)
    elif r == "transcription":
        editor.language.setText(p.language or "")
    elif r == "music":
        editor.prompt.setPlainText(p.prompt or "")
        if p.duration:
            editor.duration.setValue(p.duration)
    if p.model and p.model != editor.model:
        editor.model = p.model
        editor.modelChanged.emit(p.model)  # the Model box shows what the body sends
    return earlier


def select_value(combo: QComboBox, value: str) -> None:
    """Select ``value`` in ``combo``, adding it first if the combo does not offer it."""
    i = combo.findData(value)
    if i < 0:
        combo.addItem(value or "default", value)
        i = combo.count() - 1
    combo.setCurrentIndex(i)
