"""The conversational request form: system, message, sampling, reasoning, response format and the
Advanced group, under each route's own wire names (protocol/routes/<route>.py builds them)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from playground.protocol import safe_json
from playground.ui.kit.theme import mono_font
from playground.ui.panels.editor_parts import EFFORTS
from playground.ui.panels.param_fields import (
    StopEdit,
    UnsetDoubleSpinBox,
    UnsetSpinBox,
    parse_stops,
    show_stops,
)

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox

    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["SAMPLE_SCHEMA", "ChatForm", "parse_stops", "show_stops"]

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
SUMMARIES = ("", "auto", "concise", "detailed")  # Responses' reasoning.summary
PARALLEL = (("", "default"), ("on", "on"), ("off", "off"))
_UNSET = -0.01  # a spin box's "default" (its special value): the key is not sent
_LAZY = dict.fromkeys(("schema_name", "schema_strict", "schema", "schema_note"), "schema")
_LAZY |= dict.fromkeys(("top_p", "stop", "seed", "n", "frequency", "presence"), "advanced")
_LAZY |= dict.fromkeys(("summary", "parallel"), "advanced")
# The Advanced fields a body may set: one set builds the group to show it.
_ADVANCED_KEYS: tuple[str, ...] = (
    "top_p",
    "stop",
    "seed",
    "n",
    "frequency_penalty",
    "presence_penalty",
)
_ADVANCED_KEYS += ("reasoning_summary", "parallel_tool_calls")


def _spin(low: float, high: float, step: float) -> QDoubleSpinBox:
    spin = UnsetDoubleSpinBox()
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setSpecialValueText("default")
    spin.setValue(low)
    return spin


def _value(spin: QDoubleSpinBox) -> float | None:
    return round(spin.value(), 2) if spin.value() > spin.minimum() else None


class ChatForm:
    """The fields of a chat, responses or messages editor other than its tools; the editor keeps
    the widgets as its own attributes too (``editor.temperature``...), as its callers read them."""

    # Built on first use (``__getattr__``): the schema editor's fields and the Advanced group's.
    schema_name: QLineEdit
    schema_strict: QCheckBox
    schema: QPlainTextEdit
    schema_note: QLabel
    top_p: QDoubleSpinBox
    stop: StopEdit
    seed: QSpinBox
    n: QSpinBox
    frequency: QDoubleSpinBox
    presence: QDoubleSpinBox
    summary: QComboBox
    parallel: QComboBox

    def __init__(self, editor: RequestEditor) -> None:
        self.editor = editor
        self.route = editor.route
        self._built: set[str] = set()  # "schema", "advanced": the parts built so far

    def __getattr__(self, name: str) -> Any:
        # Only reached for what normal look-up does not find: a field of an unbuilt part.
        part = _LAZY.get(name)
        if part is not None and part not in self.__dict__.get("_built", {part}):
            (self._build_schema if part == "schema" else self._build_advanced)()
            return getattr(self, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ---- building -----------------------------------------------------------------------------
    def add_top(self, f: QFormLayout) -> None:
        """System, message, temperature, max tokens and reasoning: the fields always in view."""
        e, r = self.editor, self.route
        e.make_system("System prompt (optional)", 50)
        e.system.setMaximumHeight(80)
        e.make_prompt("Type your message, then press Ctrl+Enter to send", 90).setMaximumHeight(260)
        f.addRow("System", e.system)
        f.addRow("Message", e.prompt)
        from playground.ui.conversation.attachments import AttachmentStrip

        e.attachments = AttachmentStrip.under(e.prompt, f, e)  # images on the next user turn
        e.history_note = QLabel()
        e.history_note.setStyleSheet("color: gray;")
        f.addRow("", e.history_note)
        e.history_note.hide()
        e.temperature = self._spin(_UNSET, 2.0, 0.1)
        f.addRow("Temperature", e.temperature)
        e.max_tokens = UnsetSpinBox()
        e.max_tokens.setRange(0, 1_000_000)
        e.max_tokens.setSpecialValueText("default")
        e.max_tokens.setToolTip(
            {"responses": "max_output_tokens"}.get(r, "max_tokens") + " (0: not sent)"
        )
        e.max_tokens.valueChanged.connect(e._form_edited)
        f.addRow("Max tokens", e.max_tokens)
        if r == "messages":
            e.thinking = UnsetSpinBox()
            e.thinking.setRange(0, 100_000)
            e.thinking.setSingleStep(1024)
            e.thinking.setSpecialValueText("off")
            e.thinking.valueChanged.connect(e._form_edited)
            f.addRow("Thinking budget", e.thinking)
        else:
            e.effort = e._combo(EFFORTS)
            f.addRow("Reasoning effort", e.effort)

    def add_bottom(self, f: QFormLayout) -> None:
        """The response format group, then the Advanced group (folded until opened)."""
        self._add_format(f)
        self._add_advanced(f)

    def _spin(self, low: float, high: float, step: float) -> QDoubleSpinBox:
        spin = _spin(low, high, step)
        spin.valueChanged.connect(self.editor._form_edited)
        return spin

    def _add_format(self, f: QFormLayout) -> None:
        e, r = self.editor, self.route
        box = QGroupBox("Response format")
        layout = QVBoxLayout(box)
        offered = [item for item in FORMATS if not (r == "messages" and item[0] == "json_object")]
        self.format = e._combo(tuple(k for k, _ in offered), dict(offered))
        self.format.setToolTip(
            {
                "chat": "response_format",
                "responses": "text.format",
                "messages": "output_config.format (Anthropic's structured outputs)",
            }[r]
        )
        layout.addWidget(self.format)
        # The schema editor shows while the format is JSON Schema; it is built the first time it
        # is (or one of its fields is reached for): the first frame's format is text.
        self.schema_box = QWidget()
        self._schema_form = QFormLayout(self.schema_box)
        self._schema_form.setContentsMargins(0, 0, 0, 0)
        self._schema_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        layout.addWidget(self.schema_box)
        self.schema_box.hide()
        self.format.currentIndexChanged.connect(self._format_shown)
        f.addRow(box)
        self.format_box = box

    def _build_schema(self) -> None:
        e, r, inner = self.editor, self.route, self._schema_form
        self._built.add("schema")
        self.schema_name = QLineEdit("answer")
        self.schema_name.textChanged.connect(e._form_edited)
        self.schema_strict = QCheckBox("strict")
        self.schema_strict.setChecked(True)
        self.schema_strict.toggled.connect(e._form_edited)
        if r != "messages":  # Anthropic's format is a type and a schema: no name, no strict
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
        self.schema.textChanged.connect(e._form_edited)
        inner.addRow(self.schema)
        self.schema_note = QLabel()
        self.schema_note.setWordWrap(True)
        self.schema_note.setStyleSheet("color: gray;")
        inner.addRow(self.schema_note)

    def _format_shown(self) -> None:
        on = self.format.currentData() == "json_schema"
        if on and "schema" not in self._built:
            self._build_schema()
        self.schema_box.setVisible(on)

    def _add_advanced(self, f: QFormLayout) -> None:
        # The group's fields are built when it is first opened or one of them is reached for:
        # folded, the first frame shows only its toggle (startup time).
        self.advanced_toggle = QToolButton()
        self.advanced_toggle.setText("Advanced")
        self.advanced_toggle.setCheckable(True)
        self.advanced_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.advanced_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.advanced_toggle.setAutoRaise(True)
        self.advanced = QWidget()
        form = QFormLayout(self.advanced)
        form.setContentsMargins(8, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        # The column was sized before this group opened (route_panel.py): a row too long for
        # it puts its field under its label instead of running past the column's edge.
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self._advanced_form = form
        self.advanced.hide()
        self.advanced_toggle.toggled.connect(self.show_advanced)
        f.addRow(self.advanced_toggle)
        f.addRow(self.advanced)

    def _build_advanced(self) -> None:
        e, r, form = self.editor, self.route, self._advanced_form
        self._built.add("advanced")
        self.top_p = self._spin(_UNSET, 1.0, 0.05)
        form.addRow("Top P", self.top_p)
        self.stop = StopEdit()
        self.stop.setPlaceholderText(r"one per line; \n for a line break in one")
        self.stop.setToolTip("stop_sequences" if r == "messages" else "stop")
        self.stop.textChanged.connect(e._form_edited)
        if r != "responses":  # the Responses API has no stop sequences
            form.addRow("Stop", self.stop)
        if r == "chat":
            self.seed = UnsetSpinBox()
            self.seed.setRange(-1, 2_147_483_647)
            self.seed.setSpecialValueText("default")
            self.seed.setValue(-1)
            self.seed.valueChanged.connect(e._form_edited)
            form.addRow("Seed", self.seed)
            self.n = UnsetSpinBox()
            self.n.setRange(0, 16)
            self.n.setSpecialValueText("default")
            self.n.setToolTip("n: how many choices (each gets its own tab)")
            self.n.valueChanged.connect(e._form_edited)
            form.addRow("Choices (n)", self.n)
            self.frequency = self._spin(-2.01, 2.0, 0.1)
            form.addRow("Frequency penalty", self.frequency)
            self.presence = self._spin(-2.01, 2.0, 0.1)
            form.addRow("Presence penalty", self.presence)
        if r == "responses":
            self.summary = e._combo(SUMMARIES)
            self.summary.setToolTip("reasoning.summary")
            form.addRow("Reasoning summary", self.summary)
        self.parallel = e._combo(tuple(k for k, _ in PARALLEL), dict(PARALLEL))
        self.parallel.setToolTip(
            "tool_choice.disable_parallel_tool_use (sent with tools)"
            if r == "messages"
            else "parallel_tool_calls (sent with tools)"
        )
        form.addRow("Parallel tool calls", self.parallel)

    def show_advanced(self, on: bool) -> None:
        if on and "advanced" not in self._built:
            self._build_advanced()
        self.advanced_toggle.setChecked(on)
        self.advanced_toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)
        self.advanced.setVisible(on)

    # ---- form -> params -----------------------------------------------------------------------
    def read(self, p: RequestParams) -> None:
        """The fields into ``p`` (system, turns and tools are the editor's); ValueError when the
        schema editor does not hold a JSON object (the editor keeps its last body and says so)."""
        e, r = self.editor, self.route
        p.system = e.system.toPlainText() or None
        p.temperature = _value(e.temperature)
        p.max_tokens = e.max_tokens.value() or None
        if r == "messages":
            p.thinking_budget = e.thinking.value() or None
        else:
            p.reasoning_effort = e.effort.currentData() or None
        if "advanced" in self._built:  # unbuilt, every field says "default": nothing is sent
            self._read_advanced(p)
        kind = self.format.currentData() or None
        p.format_type = kind
        if kind == "json_schema":
            p.schema = self._schema()
            if r != "messages":
                p.schema_name = self.schema_name.text().strip() or "answer"
                p.schema_strict = self.schema_strict.isChecked() or None

    def _read_advanced(self, p: RequestParams) -> None:
        r = self.route
        p.top_p = _value(self.top_p)
        if r != "responses":
            p.stop = parse_stops(self.stop.text())
        if r == "chat":
            p.seed = self.seed.value() if self.seed.value() >= 0 else None
            p.n = self.n.value() or None
            p.frequency_penalty = _value(self.frequency)
            p.presence_penalty = _value(self.presence)
        if r == "responses":
            p.reasoning_summary = self.summary.currentData() or None
        p.parallel_tool_calls = {"on": True, "off": False}.get(self.parallel.currentData() or "")

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

    # ---- params -> form -----------------------------------------------------------------------
    def show(self, p: RequestParams) -> None:
        """Show ``p``'s values (a body read back); fields it does not set go to their default."""
        from playground.ui.panels.editor_fill import select_value

        e, r = self.editor, self.route
        e.temperature.setValue(p.temperature if p.temperature is not None else _UNSET)
        e.max_tokens.setValue(p.max_tokens or 0)
        if r == "messages":
            e.thinking.setValue(p.thinking_budget or 0)
        else:
            select_value(e.effort, p.reasoning_effort or "")
        if "advanced" in self._built or any(getattr(p, k) is not None for k in _ADVANCED_KEYS):
            self._show_advanced_values(p)
        select_value(self.format, p.format_type or "")
        if p.format_type == "json_schema":
            self.schema.setPlainText(json.dumps(p.schema or {}, indent=2, ensure_ascii=False))
            self.schema_name.setText(p.schema_name or "answer")
            self.schema_strict.setChecked(bool(p.schema_strict))
            self.schema_note.setText(_schema_problem(p.schema or {}))
        self._format_shown()
        if any(
            getattr(p, k) is not None
            for k in ("top_p", "stop", "seed", "frequency_penalty", "presence_penalty")
        ) or (p.reasoning_summary or p.parallel_tool_calls is not None or (p.n or 0) > 1):
            self.show_advanced(True)  # a value the body set is never hidden in a folded group

    def _show_advanced_values(self, p: RequestParams) -> None:
        from playground.ui.panels.editor_fill import select_value

        r = self.route
        self.top_p.setValue(p.top_p if p.top_p is not None else _UNSET)
        self.stop.setText(show_stops(p.stop))
        if r == "chat":
            self.seed.setValue(p.seed if p.seed is not None else -1)
            self.n.setValue(p.n or 0)
            self.frequency.setValue(
                p.frequency_penalty if p.frequency_penalty is not None else -2.01
            )
            self.presence.setValue(p.presence_penalty if p.presence_penalty is not None else -2.01)
        if r == "responses":
            select_value(self.summary, p.reasoning_summary or "")
        parallel = (
            "" if p.parallel_tool_calls is None else ("on" if p.parallel_tool_calls else "off")
        )
        select_value(self.parallel, parallel)


def _schema_problem(schema: dict[str, Any]) -> str:
    """What is wrong with ``schema`` as a JSON Schema, or what the answer will be checked with."""
    from playground.protocol.structured import validate

    verdict = validate(schema, None)
    problem = next((e for e in verdict.errors if e.startswith("schema:")), None)
    return problem or "The answer is shown as JSON and checked against this schema."
