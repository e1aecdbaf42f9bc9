"""Filling the request editor's form from RequestParams (a JSON body read back into the fields)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playground.protocol.routes import route_of
from playground.ui.panels.fields import FIELDS

if TYPE_CHECKING:
    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["show_params"]


def show_params(editor: RequestEditor, p: RequestParams) -> list[dict[str, Any]] | None:
    """Show ``p`` in ``editor``'s form (the caller keeps the raw view from echoing it back);
    on a conversational route, returns the earlier turns the form does not show."""
    earlier: list[dict[str, Any]] | None = None
    if route_of(editor.route).conversational:
        # The Message box shows the last user turn; the turns before it ride along unseen.
        earlier = list(p.messages)
        last = earlier.pop() if earlier and earlier[-1].get("role") == "user" else None
        text = p.prompt if p.prompt is not None else (last or {}).get("content", "")
        p = replace(p, prompt=text if isinstance(text, str) else json.dumps(text))
        editor.history_note.setVisible(bool(earlier))
        editor.history_note.setText(f"+ {len(earlier)} earlier turn(s) from the JSON body")
    # A body that sets a folded field unfolds the Advanced group: a value it sets is never hidden.
    folded = [f for f in FIELDS[editor.route] if f.folded and f.sets is not None and f.sets(p)]
    if folded:
        editor.show_advanced(True)
    for field, widget in editor.form_fields():
        if field.fill is not None:
            field.fill(widget, p)
    if p.model and p.model != editor.model:
        editor.model = p.model
        editor.modelChanged.emit(p.model)  # the Model box shows what the body sends
    return earlier
