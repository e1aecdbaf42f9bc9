"""The Variables group: the ``{{name}}`` variables a panel's request uses, a value field each.

The editor hands every body it builds through ``fill`` (``RequestEditor._sent``): the group lists
the names the body uses where a suite's variant would (the system, every turn of the thread, the
message box, the tools' descriptions; ``evaluate.variables.names_in_body``) and gives the body
back with the values filled in by the evaluation engine's own substitution (``fill_body``), so
the JSON body view shows, and Send sends, the request as it goes. An empty field is no value:
that variable is sent as written (``{{topic}}``), and the group says so beside the fields. The
values are the panel's: a name that leaves the request keeps its value for when it comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QLineEdit, QVBoxLayout, QWidget

__all__ = ["VARIABLE_ROUTES", "VariablesGroup", "unfilled_note"]

VARIABLE_ROUTES: Final = frozenset({"chat", "responses", "messages"})
# A thread's change (a run's end, a turn deleted) is looked at for new names this long after,
# once: the body is built for it only when no JSON body view builds it anyway.
RESCAN_MS: Final = 150


def unfilled_note(names: list[str]) -> str:
    """What the group says of the variables without a value ("" when every one has one)."""
    if not names:
        return ""
    listed = ", ".join(f"{{{{{name}}}}}" for name in names)
    return f"No value for {listed}: sent as written."


class VariablesGroup(QGroupBox):
    """A value field per variable the request uses; hidden while it uses none. ``changed``
    fires after a value is edited (the editor builds its body again)."""

    changed = Signal()

    def __init__(self, built: Callable[[], dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__("Variables", parent)
        self.setToolTip(
            "{{name}} in the system, the thread, the message box or a tool's description is "
            "filled with its value here in the JSON body and in what Send sends. An edit "
            "typed into the JSON body is taken as shown: the values in it stay as text."
        )
        self._built = built  # the editor's body before filling (to look for names later)
        self._values: dict[str, str] = {}  # every value typed, used now or not
        self._names: list[str] = []
        self._fields: dict[str, QLineEdit] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 4, 6, 4)
        self._form = QFormLayout()
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        outer.addLayout(self._form)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #b8860b;")
        self.note.hide()
        outer.addWidget(self.note)
        self._rescan = QTimer(self)
        self._rescan.setSingleShot(True)
        self._rescan.setInterval(RESCAN_MS)
        self._rescan.timeout.connect(self._scan_now)
        self.hide()

    # ---- what the editor calls -------------------------------------------------------------
    def fill(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` (the form's) as sent: each variable with a value filled in; the list of
        variables follows ``body``."""
        from playground.evaluate.variables import names_in_body

        self._show_names(names_in_body(body))
        return self.filled(body)

    def filled(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` with the values filled in, the list left as it is (a JSON body typed with
        ``{{name}}`` in it, or one shown filled already, which names none)."""
        from playground.evaluate.variables import fill_body

        values = {n: v for n, v in self._values.items() if v}
        return fill_body(body, values) if values else body

    def place_in(self, form: QFormLayout, below: QWidget | None) -> None:
        """Take a row of ``form`` under ``below`` (the System box: the group sits by the text
        it fills, not under the folded fields), or its last row."""
        found: Any = form.getWidgetPosition(below) if below is not None else (-1, None)
        row = int(found[0])  # PySide6 types the (row, role) pair as object
        if row < 0:
            form.addRow(self)
        else:
            form.insertRow(row + 1, self)

    def rescan_soon(self) -> None:
        """The request changed where no body was built (the thread): look for names shortly."""
        self._rescan.start()

    # ---- values ------------------------------------------------------------------------------
    def names(self) -> list[str]:
        """The variables the request uses now, in order of first use."""
        return list(self._names)

    def field(self, name: str) -> QLineEdit:
        return self._fields[name]

    def values(self) -> dict[str, str]:
        """Every value the panel holds (a preset keeps them), empty ones left out."""
        return {name: value for name, value in self._values.items() if value}

    def set_values(self, values: Mapping[str, str]) -> None:
        """Put back values (a preset's); the body is built again with them."""
        self._values = {str(k): str(v) for k, v in values.items() if isinstance(v, str)}
        for name, edit in self._fields.items():
            edit.blockSignals(True)
            edit.setText(self._values.get(name, ""))
            edit.blockSignals(False)
        self._update_note()
        self.changed.emit()

    def unfilled(self) -> list[str]:
        return [name for name in self._names if not self._values.get(name)]

    # ---- the rows ----------------------------------------------------------------------------
    def _scan_now(self) -> None:
        try:
            self.fill(self._built())
        except Exception:  # a body the form cannot build says so in the JSON view, not here
            return

    def _show_names(self, names: list[str]) -> None:
        if names == self._names:
            return
        self._names = names
        while self._form.rowCount():
            self._form.removeRow(0)
        self._fields = {}
        for name in names:
            edit = QLineEdit(self._values.get(name, ""))
            edit.setPlaceholderText("no value: sent as written")
            edit.textEdited.connect(lambda text, n=name: self._edited(n, text))
            self._fields[name] = edit
            self._form.addRow(f"{{{{{name}}}}}", edit)
        self.setVisible(bool(names))
        self._update_note()

    def _edited(self, name: str, text: str) -> None:
        self._values[name] = text
        self._update_note()
        self.changed.emit()

    def _update_note(self) -> None:
        text = unfilled_note(self.unfilled())
        self.note.setText(text)
        self.note.setVisible(bool(text))
