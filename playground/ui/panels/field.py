"""One control of a route's request form, declared once: its widget, what it reads into the
request's parameters and how it shows a body's parameters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["Field", "choice"]


@dataclass(frozen=True)
class Field:
    """One control of a route's form (``fields.FIELDS[route]`` lists them in the form's order)."""

    name: str  # the editor's attribute that holds the widget ("" for a hint that holds none)
    label: str
    make: Callable[[RequestEditor], QWidget]  # the widget, wired to the editor's edits
    # What the widget puts into the request, and how it shows a body's parameters (None: the
    # field sends nothing by itself, as the file to transcribe and the image to edit, which
    # travel as multipart files).
    read: Callable[[Any, RequestParams], None] | None = None
    fill: Callable[[Any, RequestParams], None] | None = None
    row: Callable[[RequestEditor, Any], QWidget] | None = None  # the form's row, if not the widget
    span: bool = False  # the row spans the label's column too (a group box)
    # In the folded Advanced group: built when the group first opens or a body sets it (``sets``),
    # so the first frame shows only the group's toggle. Unbuilt, it says "default": nothing sent.
    folded: bool = False
    sets: Callable[[RequestParams], bool] | None = None
    # Where the widget sits: "form" (the request form's column), "composer" (the message box
    # under a conversational panel's transcript, as in every chat console) or "system" (the
    # folded System prompt at the transcript's top). The editor builds each place's widgets into
    # ``RequestEditor.places[place]``; the panel puts that widget where the place is.
    place: str = "form"


def choice(
    name: str,
    label: str,
    attr: str,
    make: Callable[[RequestEditor], QWidget],
    *,
    shown_unset: str = "",
    folded: bool = False,
) -> Field:
    """A combo box of one parameter: its item's data is the value sent ("" sends nothing), and
    a body's value selects its item (``shown_unset`` where the body has none)."""
    from playground.ui.panels.editor_parts import select_value

    return Field(
        name,
        label,
        make,
        lambda w, p: setattr(p, attr, w.currentData() or None),
        lambda w, p: select_value(w, getattr(p, attr) or shown_unset),
        folded=folded,
        sets=(lambda p: bool(getattr(p, attr))) if folded else None,
    )
