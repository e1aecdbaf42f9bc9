"""The request form's fields of the chat-like routes (Chat Completions, Responses, Messages), each
declared once as a ``Field``: its widget, what it reads into the request's parameters and how it
shows a body's. Each route's wire names are its descriptor's (protocol/routes/<route>.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QCheckBox, QDoubleSpinBox, QLabel, QWidget

from playground.ui.panels.editor_parts import EFFORTS, select_value
from playground.ui.panels.field import Field, choice
from playground.ui.panels.param_fields import (
    StopEdit,
    UnsetDoubleSpinBox,
    UnsetSpinBox,
    parse_stops,
    show_stops,
)

if TYPE_CHECKING:
    from playground.protocol.requests import RequestParams
    from playground.ui.panels.editor import RequestEditor

__all__ = ["chat_fields"]

SUMMARIES = ("", "auto", "concise", "detailed")  # Responses' reasoning.summary
PARALLEL = (("", "default"), ("on", "on"), ("off", "off"))
_UNSET = -0.01  # a spin box's "default" (its special value): the key is not sent
_PENALTY_UNSET = -2.01


# ---- makers -----------------------------------------------------------------------------------
def _spin(low: float, high: float, step: float) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        spin = UnsetDoubleSpinBox()
        spin.setRange(low, high)
        spin.setSingleStep(step)
        spin.setSpecialValueText("default")
        spin.setValue(low)
        spin.valueChanged.connect(editor._form_edited)
        return spin

    return make


def _int_spin(
    low: int, high: int, tip: str = "", step: int = 1, unset: str = "default"
) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        spin = UnsetSpinBox()
        spin.setRange(low, high)
        spin.setSingleStep(step)
        spin.setSpecialValueText(unset)
        spin.setValue(low)
        if tip:
            spin.setToolTip(tip)
        spin.valueChanged.connect(editor._form_edited)
        return spin

    return make


def _combo(items: tuple[tuple[str, str], ...], tip: str = "") -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        combo = editor._combo(tuple(k for k, _ in items), dict(items))
        if tip:
            combo.setToolTip(tip)
        return combo

    return make


def _system(editor: RequestEditor) -> QWidget:
    box = editor.make_system("System prompt (optional): how the model should behave", 50)
    box.setMaximumHeight(120)
    return box


def _message(editor: RequestEditor) -> QWidget:
    # A placeholder, never prefilled text: a click and a typed question would send both.
    box = editor.make_prompt("Type a message — Ctrl+Enter sends", 56)
    box.setMaximumHeight(200)
    return box


def _attachments(editor: RequestEditor) -> QWidget:
    from playground.ui.conversation.attachments import AttachmentStrip

    strip = AttachmentStrip()  # images on the next user turn
    strip.catch(editor.prompt)  # dropped or pasted on the prompt
    strip.catch(editor)  # dropped anywhere on the editor
    return strip


def _history_note(editor: RequestEditor) -> QWidget:
    note = QLabel()
    note.setStyleSheet("color: gray;")
    note.hide()  # shown while the body holds earlier turns (editor_fill.py)
    return note


def _tools(route: str) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        from playground.ui.panels.tools_editor import ToolsEditor

        tools = ToolsEditor()  # each tool checked as JSON Schema (tools_editor.py)
        tools.changed.connect(editor._form_edited)
        return tools

    return make


def _include_usage(editor: RequestEditor) -> QWidget:
    box = QCheckBox("stream_options.include_usage")
    box.setChecked(True)
    box.toggled.connect(editor._form_edited)
    return box


def _response_format(route: str) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        from playground.ui.panels.response_format import ResponseFormatBox

        return ResponseFormatBox(route, editor._form_edited)

    return make


def _stop(route: str) -> Callable[[RequestEditor], QWidget]:
    def make(editor: RequestEditor) -> QWidget:
        stop = StopEdit()
        stop.setPlaceholderText(r"one per line; \n for a line break in one")
        stop.setToolTip("stop_sequences" if route == "messages" else "stop")
        stop.textChanged.connect(editor._form_edited)
        return stop

    return make


# ---- readers and fillers ----------------------------------------------------------------------
def _value(spin: QDoubleSpinBox) -> float | None:
    return round(spin.value(), 2) if spin.value() > spin.minimum() else None


def _or(value: float | None, unset: float) -> float:
    return value if value is not None else unset


def _decimal(
    key: str, label: str, attr: str, low: float, high: float, step: float, *, folded: bool = False
) -> Field:
    """A decimal parameter whose spin box at its lowest reads "default" (not sent): its body
    part, its fill and whether a body sets it all follow from ``attr`` of the request."""
    return Field(
        key,
        label,
        _spin(low, high, step),
        lambda w, p: setattr(p, attr, _value(w)),
        lambda w, p: w.setValue(_or(getattr(p, attr), low)),
        folded=folded,
        sets=(lambda p: getattr(p, attr) is not None) if folded else None,
    )


def _read_tools(tools: Any, p: RequestParams) -> None:
    if tools.use_tools.isChecked():
        tools.put_into(p)


def _fill_tools(route: str) -> Callable[[Any, RequestParams], None]:
    def fill(tools: Any, p: RequestParams) -> None:
        if p.tools:
            tools.show_tools(p.tools, p.tool_choice)
        elif route == "chat":
            tools.set_sending(False)

    return fill


def _parallel(value: bool | None) -> str:
    return "" if value is None else ("on" if value else "off")


def _read_seed(w: Any, p: RequestParams) -> None:
    p.seed = w.value() if w.value() >= 0 else None


# ---- the declarations -------------------------------------------------------------------------
def chat_fields(route: str) -> tuple[Field, ...]:
    """The form of the chat-like ``route``, in the form's order."""
    messages, responses, chat = route == "messages", route == "responses", route == "chat"
    max_tokens = "max_output_tokens" if responses else "max_tokens"
    fields = [
        Field(
            "system",
            "System",
            _system,
            lambda w, p: setattr(p, "system", w.toPlainText() or None),
            lambda w, p: w.setPlainText(p.system or ""),
            place="system",
        ),
        # The editor puts the earlier turns of the thread or a body before it (editor.py).
        Field(
            "prompt",
            "Message",
            _message,
            lambda w, p: setattr(p, "prompt", w.toPlainText()),
            lambda w, p: w.setPlainText(p.prompt or ""),
            place="composer",
        ),
        Field("attachments", "", _attachments, place="composer"),
        Field("history_note", "", _history_note),
        _decimal("temperature", "Temperature", "temperature", _UNSET, 2.0, 0.1),
        Field(
            "max_tokens",
            "Max tokens",
            _int_spin(0, 1_000_000, f"{max_tokens} (0: not sent)"),
            lambda w, p: setattr(p, "max_tokens", w.value() or None),
            lambda w, p: w.setValue(p.max_tokens or 0),
        ),
    ]
    if messages:
        fields.append(
            Field(
                "thinking",
                "Thinking budget",
                _int_spin(0, 100_000, step=1024, unset="off"),
                lambda w, p: setattr(p, "thinking_budget", w.value() or None),
                lambda w, p: w.setValue(p.thinking_budget or 0),
            )
        )
    else:
        fields.append(
            choice(
                "effort",
                "Reasoning effort",
                "reasoning_effort",
                _combo(tuple((e, e or "default") for e in EFFORTS)),
            )
        )
    fields.append(Field("tools", "", _tools(route), _read_tools, _fill_tools(route), span=True))
    if chat:
        fields.append(
            Field(
                "include_usage",
                "Usage",
                _include_usage,
                lambda w, p: setattr(p, "include_usage", w.isChecked() or None),
                lambda w, p: w.setChecked(bool(p.include_usage)),
            )
        )
    fields.append(
        Field(
            "response_format",
            "",
            _response_format(route),
            lambda w, p: w.read(p),
            lambda w, p: w.show_params(p),
            span=True,
        )
    )
    fields += _advanced(route)
    return tuple(fields)


def _advanced(route: str) -> list[Field]:
    """The Advanced group's fields (folded until opened, or until a body sets one)."""
    chat = route == "chat"
    fields = [_decimal("top_p", "Top P", "top_p", _UNSET, 1.0, 0.05, folded=True)]
    if route != "responses":  # the Responses API has no stop sequences
        fields.append(
            Field(
                "stop",
                "Stop",
                _stop(route),
                lambda w, p: setattr(p, "stop", parse_stops(w.text())),
                lambda w, p: w.setText(show_stops(p.stop)),
                folded=True,
                sets=lambda p: p.stop is not None,
            )
        )
    if chat:
        fields += [
            Field(
                "seed",
                "Seed",
                _int_spin(-1, 2_147_483_647),
                _read_seed,
                lambda w, p: w.setValue(p.seed if p.seed is not None else -1),
                folded=True,
                sets=lambda p: p.seed is not None,
            ),
            Field(
                "n",
                "Choices (n)",
                _int_spin(0, 16, "n: how many choices (each gets its own tab)"),
                lambda w, p: setattr(p, "n", w.value() or None),
                lambda w, p: w.setValue(p.n or 0),
                folded=True,
                sets=lambda p: (p.n or 0) > 1,
            ),
            _decimal(
                "frequency",
                "Frequency penalty",
                "frequency_penalty",
                _PENALTY_UNSET,
                2.0,
                0.1,
                folded=True,
            ),
            _decimal(
                "presence",
                "Presence penalty",
                "presence_penalty",
                _PENALTY_UNSET,
                2.0,
                0.1,
                folded=True,
            ),
        ]
    if route == "responses":
        fields.append(
            choice(
                "summary",
                "Reasoning summary",
                "reasoning_summary",
                _combo(tuple((s, s or "default") for s in SUMMARIES), "reasoning.summary"),
                folded=True,
            )
        )
    fields.append(
        Field(
            "parallel",
            "Parallel tool calls",
            _combo(
                PARALLEL,
                "tool_choice.disable_parallel_tool_use (sent with tools)"
                if route == "messages"
                else "parallel_tool_calls (sent with tools)",
            ),
            lambda w, p: setattr(
                p, "parallel_tool_calls", {"on": True, "off": False}.get(w.currentData() or "")
            ),
            lambda w, p: select_value(w, _parallel(p.parallel_tool_calls)),
            folded=True,
            sets=lambda p: p.parallel_tool_calls is not None,
        )
    )
    return fields
