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
    else:
        for field, widget in editor.form_fields():
            if field.fill is not None:
                field.fill(widget, p)
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
