"""The Response format group of a chat-like form: text, JSON object or JSON Schema, with the schema
editor built the first time JSON Schema is chosen (the first frame's format is text)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from playground.protocol import safe_json
from playground.ui.kit.theme import mono_font
from playground.ui.panels.editor_parts import select_value

if TYPE_CHECKING:
    from collections.abc import Callable

    from playground.protocol.requests import RequestParams

__all__ = ["SAMPLE_SCHEMA", "ResponseFormatBox"]

# What the schema editor starts with: a small object a simulated or real model can fill.
SAMPLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "number"},
        "summary": {"type": "string"},
    },
    "required": ["city", "temperature_c", "summary"],
    "additionalProperties": False,
}
FORMATS = (("", "text"), ("json_object", "JSON object"), ("json_schema", "JSON Schema"))
# Where each route puts the format (protocol/routes/<route>.py builds it).
_WIRE_NAMES = {
    "chat": "response_format",
    "responses": "text.format",
    "messages": "output_config.format (Anthropic's structured outputs)",
}


class ResponseFormatBox(QGroupBox):
    """The format picker and, while it says JSON Schema, the schema editor; ``edited`` is called
    after any of its fields changes."""

    # Built with the schema editor (``schema_built``): the first JSON Schema chosen or shown.
    schema_name: QLineEdit
    schema_strict: QCheckBox
    schema: QPlainTextEdit
    schema_note: QLabel

    def __init__(self, route: str, edited: Callable[..., None]) -> None:
        super().__init__("Response format")
        self.route = route
        self._edited = edited
        self.schema_built = False
        layout = QVBoxLayout(self)
        # Anthropic's structured outputs have a JSON Schema format only.
        offered = [f for f in FORMATS if not (route == "messages" and f[0] == "json_object")]
        self.format = QComboBox()
        for key, label in offered:
            self.format.addItem(label, key)
        self.format.currentIndexChanged.connect(edited)
        self.format.setToolTip(_WIRE_NAMES[route])
        layout.addWidget(self.format)
        self.schema_box = QWidget()
        self._schema_form = QFormLayout(self.schema_box)
        self._schema_form.setContentsMargins(0, 0, 0, 0)
        self._schema_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.addWidget(self.schema_box)
        self.schema_box.hide()
        self.format.currentIndexChanged.connect(self._format_shown)

    def build_schema(self) -> None:
        """The schema editor's fields, once."""
        if self.schema_built:
            return
        self.schema_built = True
        inner, edited = self._schema_form, self._edited
        self.schema_name = QLineEdit("answer")
        self.schema_name.textChanged.connect(edited)
        self.schema_strict = QCheckBox("strict")
        self.schema_strict.setChecked(True)
        self.schema_strict.toggled.connect(edited)
        # Anthropic's format is a type and a schema: no name, no strict.
        if self.route != "messages":
            inner.addRow("Name", self.schema_name)
            inner.addRow("", self.schema_strict)
        self.schema = QPlainTextEdit(json.dumps(SAMPLE_SCHEMA, indent=2))
        self.schema.setFont(mono_font())
        # Indented JSON broken mid-line reads badly in a narrow column: it scrolls sideways.
        self.schema.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.schema.setMinimumHeight(90)
        self.schema.setMaximumHeight(200)
        self.schema.setTabChangesFocus(True)
        self.schema.setToolTip("The JSON Schema the answer must follow")
        self.schema.textChanged.connect(edited)
        inner.addRow(self.schema)
        self.schema_note = QLabel()
        self.schema_note.setWordWrap(True)
        self.schema_note.setStyleSheet("color: gray;")
        inner.addRow(self.schema_note)

    def _format_shown(self) -> None:
        on = self.format.currentData() == "json_schema"
        if on:
            self.build_schema()
        self.schema_box.setVisible(on)

    def read(self, p: RequestParams) -> None:
        """The format into ``p``; ValueError when the schema editor does not hold a JSON object
        (the editor keeps its last body and says so)."""
        kind = self.format.currentData() or None
        p.format_type = kind
        if kind == "json_schema":
            self.build_schema()  # the format's own signal may reach the editor first
            p.schema = self._schema()
            if self.route != "messages":
                p.schema_name = self.schema_name.text().strip() or "answer"
                p.schema_strict = self.schema_strict.isChecked() or None

    def show_params(self, p: RequestParams) -> None:
        """Show the format ``p`` sets (text when none)."""
        select_value(self.format, p.format_type or "")
        if p.format_type == "json_schema":
            self.build_schema()
            self.schema.setPlainText(json.dumps(p.schema or {}, indent=2, ensure_ascii=False))
            self.schema_name.setText(p.schema_name or "answer")
            self.schema_strict.setChecked(bool(p.schema_strict))
            self.schema_note.setText(_schema_problem(p.schema or {}))
        self._format_shown()

    def _schema(self) -> dict[str, Any]:
        try:
            value = safe_json.loads(self.schema.toPlainText() or "{}")
        except ValueError as exc:
            self.schema_note.setText(f"Not valid JSON yet: {exc}")
            raise ValueError(f"the JSON Schema is not valid JSON ({exc})") from None
        if not isinstance(value, dict):
            self.schema_note.setText("A JSON Schema is a JSON object.")
            raise ValueError("the JSON Schema must be a JSON object")
        self.schema_note.setText(_schema_problem(value))
        return value


def _schema_problem(schema: dict[str, Any]) -> str:
    """What is wrong with ``schema`` as a JSON Schema, or what the answer will be checked with."""
    from playground.protocol.structured import validate

    verdict = validate(schema, None)
    problem = next((e for e in verdict.errors if e.startswith("schema:")), None)
    return problem or "The answer is shown as JSON and checked against this schema."
