"""The request editor's Tools group: the tools as a list (name, description, parameters checked
as JSON Schema as you type, a canned result), Send tools, Auto-reply, Edit as JSON, Tool choice.

A tool whose parameters are not a valid schema is left out of the body, and both this list and
the JSON body view say so: the rest of the tools keep working and the body stays current (a
body kept from before the mistake would send tools the list no longer shows). Whoever wants to
send a broken schema on purpose, to see what a gateway answers, types it into the JSON body view,
which is sent as written.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, QSize, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol import safe_json
from playground.protocol.params import SAMPLE_TOOL, function_choice
from playground.ui.kit.theme import mono_font

# The tool definitions (protocol/tool_defs, its dataclasses) load with the first look at the
# tools: the first frame shows the group with Send tools off and reads none of them.
if TYPE_CHECKING:
    from playground.protocol.params import RequestParams
    from playground.protocol.tool_defs import SchemaProblem, ToolDef

    Checked = tuple[dict[str, Any] | None, list[SchemaProblem]]

__all__ = ["ToolsEditor"]

_CHOICES = ("auto", "none", "required")
_ERROR = "#d9534f"
_NEW_SCHEMA = '{\n  "type": "object",\n  "properties": {}\n}'
_BODY_PARTS = frozenset(("list", "add_button", "remove_button", "as_json", "pages", "name"))
_BODY_PARTS |= {"tool_choice", "description", "parameters", "schema_errors", "canned"}
_BODY_PARTS |= {"builtin_note", "json_edit", "json_error"}


class ToolsEditor(QGroupBox):
    """The Tools group of a conversational route's editor; ``changed`` after any edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Tools", parent)
        # ``defs`` (the sample tool until others are set) and ``_checked`` (checked schemas by
        # their text) are made on first use, by ``__getattr__``.
        self._loading = False
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.use_tools = QCheckBox("Send tools")
        self.use_tools.toggled.connect(self._use_toggled)
        self.auto_reply = QCheckBox("Auto-reply")
        self.auto_reply.setToolTip(
            "Answer a call of a tool that has a canned result at once, and go on"
        )
        self.auto_reply.toggled.connect(self._edited)
        top.addWidget(self.use_tools)
        top.addWidget(self.auto_reply)
        top.addStretch(1)
        layout.addLayout(top)
        # What Send tools sends: shown while it is on, so a form without tools stays short
        # (at 1024x700 the whole form fits the column with the Tools group closed). It is built
        # when Send tools is first turned on or one of its parts is reached for: with Send tools
        # off the first frame shows none of it (startup time).
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.body)
        self.body.setVisible(False)
        self.auto_reply.setVisible(False)
        self._body_built = False

    # The parts of the body (``_BODY_PARTS``) are made by ``_build_body`` on first use.
    def __getattr__(self, name: str) -> Any:
        # Only reached for what normal look-up does not find: a part of the unbuilt body, or
        # the tools not yet read.
        if name == "defs":
            from playground.protocol.tool_defs import tool_defs

            self.defs: list[ToolDef] = tool_defs([SAMPLE_TOOL])
            return self.defs
        if name == "_checked":
            from playground.protocol.tool_defs import tool_defs

            # The check runs once per text typed, and the sample's is known good, so the first
            # frame does not load jsonschema (startup time).
            sample = tool_defs([SAMPLE_TOOL])[0].parameters
            self._checked: dict[str, Checked] = {
                sample: (SAMPLE_TOOL["function"]["parameters"], [])
            }
            return self._checked
        if name in _BODY_PARTS and not self.__dict__.get("_body_built", True):
            self._build_body()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def body_built(self) -> bool:
        """Whether the list, the selected tool's fields and Tool choice exist yet."""
        return self._body_built

    def _build_body(self) -> None:
        # Classes only the body uses load with it: PySide makes each one, with its enums, when
        # it is first imported (startup time).
        from PySide6.QtWidgets import QListWidget, QStackedWidget

        self._body_built = True
        body = self.body.layout()
        assert isinstance(body, QVBoxLayout)
        # The list and its buttons.
        row = QHBoxLayout()
        self.list = QListWidget()
        self.list.setMaximumHeight(self.list.fontMetrics().height() * 4 + 10)
        self.list.currentRowChanged.connect(self._show_selected)
        row.addWidget(self.list, 1)
        buttons = QVBoxLayout()
        self.add_button = self._button("+", "Add a tool", self.add_tool)
        self.remove_button = self._button("−", "Remove the selected tool", self.remove_tool)
        self.as_json = self._button("{ }", "Edit the list as JSON", self._toggle_json)
        self.as_json.setCheckable(True)
        for button in (self.add_button, self.remove_button, self.as_json):
            buttons.addWidget(button)
        buttons.addStretch(1)
        row.addLayout(buttons)
        body.addLayout(row)
        # The selected tool, or the whole list as JSON.
        self.pages = QStackedWidget()
        self.pages.addWidget(self._detail_page())
        self.pages.addWidget(self._json_page())
        body.addWidget(self.pages)
        choice = QHBoxLayout()
        choice.addWidget(QLabel("Tool choice"))
        self.tool_choice = QComboBox()
        self.tool_choice.setEditable(True)
        self.tool_choice.setToolTip("auto, none, required, or the name of one function")
        self.tool_choice.currentTextChanged.connect(self._edited)
        choice.addWidget(self.tool_choice, 1)
        body.addLayout(choice)
        self._fill_list(0)

    def _button(self, text: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(False)
        button.setFixedWidth(self.fontMetrics().horizontalAdvance("{ }") + 18)
        button.clicked.connect(slot)
        return button

    def _detail_page(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.name = QLineEdit()
        self.name.setPlaceholderText("get_weather")
        self.name.textChanged.connect(self._detail_edited)
        self.description = QLineEdit()
        self.description.setPlaceholderText("What the tool does (the model reads it)")
        self.description.textChanged.connect(self._detail_edited)
        self.parameters = self._mono("{} (no parameters when empty)", 96)
        self.parameters.setToolTip("The JSON Schema of the arguments, checked as you type")
        self.schema_errors = QLabel()
        self.schema_errors.setWordWrap(True)
        self.schema_errors.setTextFormat(Qt.TextFormat.PlainText)
        self.schema_errors.setStyleSheet(f"color: {_ERROR};")
        self.schema_errors.hide()
        self.canned = self._mono("Canned result (JSON or text), optional", 40)
        self.canned.setMaximumHeight(64)
        self.canned.setToolTip(
            "The result a call of this tool is answered with: prefilled in its result editor, "
            "or sent at once with Auto-reply"
        )
        self.builtin_note = QLabel()
        self.builtin_note.setWordWrap(True)
        self.builtin_note.setStyleSheet("color: gray;")
        self.builtin_note.hide()
        form.addRow("Name", self.name)
        form.addRow("Description", self.description)
        form.addRow(QLabel("Parameters (JSON Schema)"))
        form.addRow(self.parameters)
        form.addRow(self.schema_errors)
        form.addRow(QLabel("Canned result"))
        form.addRow(self.canned)
        form.addRow(self.builtin_note)
        return page

    def _json_page(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        self.json_edit = self._mono("[] (no tools)", 140, self._json_edited)
        self.json_edit.setToolTip(
            "A JSON list of OpenAI-style function tools (converted per route)"
        )
        self.json_edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.json_error = QLabel()
        self.json_error.setWordWrap(True)
        self.json_error.setStyleSheet(f"color: {_ERROR};")
        box.addWidget(self.json_edit)
        box.addWidget(self.json_error)
        return page

    def _mono(self, placeholder: str, height: int, slot: Any = None) -> QPlainTextEdit:
        edit = _Box(height)
        edit.setFont(mono_font())
        edit.setPlaceholderText(placeholder)
        edit.setMinimumHeight(height)
        edit.setTabChangesFocus(True)
        edit.textChanged.connect(slot or self._detail_edited)
        return edit

    # ---- what the editor reads ---------------------------------------------------------------
    def check(self, text: str) -> Checked:
        """``check_parameters(text)``, once per text."""
        from playground.protocol.tool_defs import check_parameters

        found = self._checked.get(text)
        if found is None:
            found = self._checked[text] = check_parameters(text)
            if len(self._checked) > 256:  # a long edit session: keep the newest
                del self._checked[next(iter(self._checked))]
        return found

    def wire_tools(self) -> list[dict[str, Any]]:
        """The tools the body sends (the ones with a usable schema)."""
        from playground.protocol.tool_defs import build_tools

        return build_tools(self.defs, self.check)[0]

    def put_into(self, p: RequestParams) -> None:
        """Set ``p``'s tools and tool choice from the group (Send tools is on)."""
        p.tools = self.wire_tools()
        choice = self.tool_choice.currentText().strip()
        if choice in _CHOICES:
            p.tool_choice = choice
        elif choice:
            p.tool_choice = function_choice(choice)

    def left_out_note(self) -> str:
        """Why tools of the list are not in the body ("" when every one is)."""
        from playground.protocol.tool_defs import build_tools

        left = build_tools(self.defs, self.check)[1]
        if not left:
            return ""
        names = ", ".join(d.label for d in left)
        return f"Left out of the body (see the Tools list): {names}"

    def canned_results(self) -> dict[str, str]:
        from playground.protocol.tool_defs import canned_results

        return canned_results(self.defs)

    def put_canned(self, results: dict[str, str], auto_reply: bool | None) -> None:
        """Give back canned results by tool name (a preset opened) and, if said, Auto-reply."""
        with QSignalBlocker(self):
            for d in self.defs:
                if d.name in results:
                    d.canned = results[d.name]
            if auto_reply is not None:
                self.auto_reply.setChecked(auto_reply)
            if self.use_tools.isChecked():
                self._fill_list(0)  # the list's marks say which tools have a canned result

    # ---- filling from a body -----------------------------------------------------------------
    def show_tools(self, tools: list[Any], choice: Any) -> None:
        """The tools and tool choice of a body read back (canned results kept by tool name)."""
        from playground.protocol.tool_defs import tool_defs

        self.set_sending(True)
        self.defs = tool_defs(tools, self.canned_results())
        self._fill_list(0)
        if isinstance(choice, dict):
            fn = choice.get("function")
            choice = (fn if isinstance(fn, dict) else {}).get("name") or choice.get("name")
        self.tool_choice.setCurrentText(str(choice or "auto"))

    def setPlainText(self, text: str) -> None:
        """The list from a JSON list of tools (what the Edit as JSON view holds)."""
        with QSignalBlocker(self.json_edit):
            self.json_edit.setPlainText(text)
        self._json_edited()

    def toPlainText(self) -> str:
        from playground.protocol.tool_defs import json_tools

        return json.dumps(json_tools(self.defs), indent=2, ensure_ascii=False)

    # ---- the list ------------------------------------------------------------------------------
    def add_tool(self) -> None:
        from playground.protocol.tool_defs import ToolDef

        taken = {d.name for d in self.defs}
        n = next(i for i in range(1, len(taken) + 2) if f"tool_{i}" not in taken)
        self.defs.append(ToolDef(name=f"tool_{n}", parameters=_NEW_SCHEMA))
        self._fill_list(len(self.defs) - 1)
        self.name.setFocus()
        self.name.selectAll()
        self._edited()

    def remove_tool(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.defs):
            del self.defs[row]
            self._fill_list(min(row, len(self.defs) - 1))
            self._edited()

    def _fill_list(self, select: int, *, rewrite_json: bool = True) -> None:
        """Show ``defs`` in the list and ``select`` in the detail (signals of the list or of
        the whole editor may be blocked: everything is set here, not through them); the JSON
        view is written again unless it is what is being typed into."""
        with QSignalBlocker(self.list):
            self.list.clear()
            for _ in self.defs:
                self.list.addItem("")
            self.list.setCurrentRow(select)
        for i in range(len(self.defs)):
            self._mark(i)
        self._show_selected(select)
        self._update_choices()
        if rewrite_json and self.as_json.isChecked():
            self._show_json()

    def _mark(self, row: int) -> None:
        """The list row of tool ``row``: its name, whether it is sent, its canned result."""
        item = self.list.item(row)
        d = self.defs[row]
        if item is None:
            return
        problems = [] if d.builtin is not None else self.check(d.parameters)[1]
        if d.builtin is None and not d.name.strip():
            from playground.protocol.tool_defs import SchemaProblem

            problems = [SchemaProblem("", "no name"), *problems]
        text = d.label + ("  · canned result" if d.canned.strip() else "")
        if d.builtin is not None:
            text += "  · built-in"
        if problems:
            item.setText(f"⚠ {text}  · {'no name' if not d.name.strip() else 'invalid schema'}")
            item.setForeground(QColor(_ERROR))
            item.setToolTip("\n".join(str(p) for p in problems))
        else:
            item.setText(text)
            item.setData(Qt.ItemDataRole.ForegroundRole, None)
            item.setToolTip("")

    def _show_selected(self, row: int) -> None:
        d = self.defs[row] if 0 <= row < len(self.defs) else None
        self._loading = True
        try:
            for edit in (self.name, self.description, self.parameters, self.canned):
                edit.setEnabled(d is not None and d.builtin is None)
            self.name.setText(d.name if d else "")
            self.description.setText(d.description if d else "")
            self.parameters.setPlainText(d.parameters if d else "")
            self.canned.setPlainText(d.canned if d else "")
        finally:
            self._loading = False
        self.remove_button.setEnabled(d is not None)
        self.builtin_note.setVisible(d is not None and d.builtin is not None)
        if d is not None and d.builtin is not None:
            self.builtin_note.setText(f"A built-in tool ({d.label}): edit it as JSON.")
        self._show_problems(d)

    def _show_problems(self, d: ToolDef | None) -> None:
        problems = [] if d is None or d.builtin is not None else self.check(d.parameters)[1]
        lines = [f"✗ {p}" for p in problems]
        if d is not None and d.builtin is None and not d.name.strip():
            lines.insert(0, "✗ The tool needs a name.")
        if lines:
            lines.append("The body built from the list leaves it out until this is fixed.")
        self.schema_errors.setText("\n".join(lines))
        self.schema_errors.setVisible(bool(lines))

    def _detail_edited(self, *_args: object) -> None:
        if self._loading:
            return
        row = self.list.currentRow()
        if not 0 <= row < len(self.defs) or self.defs[row].builtin is not None:
            return
        d = self.defs[row]
        renamed = d.name != self.name.text()
        d.name = self.name.text()
        d.description = self.description.text()
        d.parameters = self.parameters.toPlainText()
        d.canned = self.canned.toPlainText()
        self._mark(row)
        self._show_problems(d)
        if renamed:
            self._update_choices()
        self._edited()

    def _update_choices(self) -> None:
        names = [d.name.strip() for d in self.defs if d.builtin is None and d.name.strip()]
        wanted = [*_CHOICES, *names]
        if [self.tool_choice.itemText(i) for i in range(self.tool_choice.count())] == wanted:
            return
        with QSignalBlocker(self.tool_choice):
            current = self.tool_choice.currentText() or "auto"
            self.tool_choice.clear()
            self.tool_choice.addItems(wanted)
            self.tool_choice.setCurrentText(current)

    # ---- Edit as JSON ----------------------------------------------------------------------
    def _toggle_json(self) -> None:
        on = self.as_json.isChecked()
        if on:
            self._show_json()
        self.pages.setCurrentIndex(1 if on else 0)

    def _show_json(self) -> None:
        with QSignalBlocker(self.json_edit):
            self.json_edit.setPlainText(self.toPlainText())
        self.json_error.clear()

    def _json_edited(self) -> None:
        try:
            value = safe_json.loads(self.json_edit.toPlainText() or "[]")
        except ValueError as exc:
            self.json_error.setText(f"Not valid JSON yet: {exc}")
            return
        value = value if isinstance(value, list) else [value]
        if not all(isinstance(t, dict) for t in value):
            self.json_error.setText("The tools must be a JSON list of objects.")
            return
        self.json_error.clear()
        from playground.protocol.tool_defs import tool_defs

        self.defs = tool_defs(value, self.canned_results())
        self._fill_list(min(max(self.list.currentRow(), 0), len(self.defs) - 1), rewrite_json=False)
        self._edited()

    def _use_toggled(self, on: bool) -> None:
        self._show_sending(on)
        self._edited()

    def set_sending(self, on: bool) -> None:
        """Send tools on or off, shown as such even while the editor's signals are blocked."""
        self.use_tools.setChecked(on)
        self._show_sending(on)

    def _show_sending(self, on: bool) -> None:
        if on and not self._body_built:
            self._build_body()
        self.body.setVisible(on)
        self.auto_reply.setVisible(on)

    def _edited(self, *_args: object) -> None:
        self.changed.emit()


class _Box(QPlainTextEdit):
    """A text box that asks for its minimum height, not Qt's 192 pixels: in the editor's scroll
    area a form taller than the column gets what its fields ask for, and the Tools group would
    push the rest of the form away."""

    def __init__(self, height: int) -> None:
        super().__init__()
        self._height = height

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._height)
