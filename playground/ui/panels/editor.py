"""A route's request editor: the fields people set and a raw JSON body view, synced both ways."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from playground.assets import sample_wav
from playground.protocol import safe_json
from playground.protocol.requests import RequestParams, build_body, params_from_body
from playground.protocol.routes import route_of
from playground.ui.kit.theme import mono_font
from playground.ui.panels.advanced_group import AdvancedGroup
from playground.ui.panels.editor_fill import show_params
from playground.ui.panels.editor_parts import (
    DEFAULT_PROMPTS,
    DropLineEdit,
)
from playground.ui.panels.fields import FIELDS, Field
from playground.ui.panels.tools_editor import ToolsEditor
from playground.ui.panels.variables import VARIABLE_ROUTES, VariablesGroup

if TYPE_CHECKING:
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    from playground.ui.conversation.attachments import AttachmentStrip
    from playground.ui.panels.image_input import ImageInput
    from playground.ui.panels.response_format import ResponseFormatBox

__all__ = ["RequestEditor", "sample_audio_path"]


def sample_audio_path() -> Path:
    """The short WAV shipped for the transcription panel (spoken by the simulator itself)."""
    return sample_wav()


class RequestEditor(QWidget):
    """The form for one route plus its raw JSON body; ``changed`` fires after either is edited."""

    changed = Signal()
    modelChanged = Signal(str)  # a body read into the form named another model (editor_fill)
    # The fields other parts use, each made from its one declaration in fields.FIELDS (the
    # editor holds a field's widget under the field's name).
    system: QPlainTextEdit
    history_note: QLabel
    temperature: QDoubleSpinBox
    max_tokens: QSpinBox
    thinking: QSpinBox
    effort: QComboBox
    tools: ToolsEditor
    include_usage: QCheckBox
    response_format: ResponseFormatBox
    attachments: AttachmentStrip  # images for the next user turn (ui/conversation/attachments.py)
    file: DropLineEdit  # Transcription's audio file
    image_input: ImageInput  # Images: an image to edit (ui/panels/image_input.py)

    def __init__(self, route: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.route = route
        self.model = ""
        self.setAcceptDrops(route == "transcription")
        self._extra: dict[str, Any] = {}
        self._messages: list[dict[str, Any]] = []
        self._syncing = False
        # A conversational panel's thread (ui/conversation/thread.py): ``merge_thread`` puts its
        # turns into the body the form builds, ``absorb_thread`` takes them from a typed body.
        self.merge_thread: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        self.absorb_thread: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        # The boxes other parts read or fill, where the route has them (``prompt_box`` ...).
        self._prompt_box: QPlainTextEdit | None = None
        self._system_box: QPlainTextEdit | None = None
        self._fields: list[tuple[Field, QWidget]] = []  # the fields built so far (fields.py)
        self._widgets: dict[str, QWidget] = {}  # the same by name
        self.advanced: AdvancedGroup | None = None  # the folded fields' group, if the route has one
        # The widgets of the fields placed outside the form (``Field.place``), one container per
        # place; the panel lays each where it belongs (the composer under the transcript).
        self.places: dict[str, QWidget] = {}
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        outer.addWidget(self.tabs)
        form_page = QWidget()
        page = QVBoxLayout(form_page)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        page.addLayout(self.form)
        # The fields sit together at the top: a tall column spread the four fields of Images,
        # Speech or Music down its whole height, a field's label far from the next.
        page.addStretch(1)
        self.tabs.addTab(form_page, "Request")
        # The JSON body view is built when its tab opens or someone reads it; until then its text
        # is kept here (the first frame shows the Request tab).
        self._raw: QPlainTextEdit | None = None
        self._raw_error: QLabel | None = None
        self._raw_text = ""
        # The thread changed since ``_raw_text`` was built, and there is no view to show it: built
        # when the view is (or its text read). With 50 long answers in the thread, each run's
        # end dumped ~400 KB of JSON nobody saw (3-5 ms of the run's last frame).
        self._raw_stale = False
        raw_page = QWidget()
        self._raw_layout = QVBoxLayout(raw_page)
        self._raw_layout.setContentsMargins(0, 4, 0, 0)
        self.tabs.addTab(raw_page, "JSON body")
        self.tabs.currentChanged.connect(self._tab_opened)
        # Parse the raw view a moment after typing stops, so half-typed JSON is not an error flash.
        self._raw_timer = QTimer(self)
        self._raw_timer.setSingleShot(True)
        self._raw_timer.setInterval(300)
        self._raw_timer.timeout.connect(self._raw_edited)
        # Setting the fields' first values is no edit: the body is built once, after them.
        self._syncing = True
        try:
            self._build_fields()
        finally:
            self._syncing = False
        # The {{name}} variables of a conversational request (ui/panels/variables.py).
        self.variables: VariablesGroup | None = None
        if route in VARIABLE_ROUTES:
            self.variables = VariablesGroup(self._built)
            self.variables.changed.connect(self._form_edited)
            self.changed.connect(self.variables.rescan_soon)  # a JSON body typed or pasted
            self.variables.place_in(self.form, self._system_box)
        self._form_to_raw()

    def form_fields(self) -> list[tuple[Field, QWidget]]:
        """The fields built so far and their widgets, in the form's order (fields.py)."""
        return list(self._fields)

    def field_widget(self, name: str) -> QWidget:
        """The widget of the route's field ``name`` (building the Advanced group if it is one of
        its fields); KeyError when the route has no such field."""
        if name not in self._widgets and self.advanced is not None:
            self.advanced.ensure_built()
        return self._widgets[name]

    def show_advanced(self, on: bool) -> None:
        """Unfold or fold the Advanced group (a route without one has nothing to show)."""
        if self.advanced is not None:
            self.advanced.show(on)

    def prompt_box(self) -> QPlainTextEdit | None:
        """The prompt box (the text to speak on Speech); None on a route without one."""
        return self._prompt_box

    def system_box(self) -> QPlainTextEdit | None:
        """The System box of a conversational route; None elsewhere."""
        return self._system_box

    def tools_list(self) -> ToolsEditor | None:
        """The Tools list of a conversational route; None elsewhere."""
        tools = self._widgets.get("tools")
        return tools if isinstance(tools, ToolsEditor) else None

    @property
    def use_tools(self) -> QCheckBox:
        """The Tools group's Send tools (a conversational route's)."""
        return self.tools.use_tools

    @property
    def tool_choice(self) -> QComboBox:
        """The Tools group's Tool choice (built with the group's body on first use)."""
        return self.tools.tool_choice

    # ---- the raw JSON body view ------------------------------------------------------------
    @property
    def raw(self) -> QPlainTextEdit:
        """The raw JSON body view (built now if its tab was never opened)."""
        return self._ensure_raw()[0]

    @property
    def raw_error(self) -> QLabel:
        """The line under the raw view that says why its JSON is not used."""
        return self._ensure_raw()[1]

    def _ensure_raw(self) -> tuple[QPlainTextEdit, QLabel]:
        if self._raw is None or self._raw_error is None:
            failure = self._build_raw_text()
            raw = QPlainTextEdit()
            raw.setFont(mono_font())
            raw.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            raw.setPlainText(self._raw_text)
            error = QLabel()
            error.setStyleSheet("color: #d9534f;")
            error.setWordWrap(True)
            error.setText(failure or self._note())
            self._raw_layout.addWidget(raw)
            self._raw_layout.addWidget(error)
            raw.textChanged.connect(self._on_raw_text)
            self._raw, self._raw_error = raw, error
        return self._raw, self._raw_error

    def _tab_opened(self, index: int) -> None:
        if index == 1:
            self._ensure_raw()

    def _raw_plain(self) -> str:
        if self._raw is not None:
            return self._raw.toPlainText()
        self._build_raw_text()
        return self._raw_text

    def _build_raw_text(self) -> str | None:
        """Without a view: ``_raw_text`` built from the form if it changed since; what stopped
        it, if something did (a bad tools JSON and the like: the last body is kept)."""
        if not self._raw_stale:
            return None
        self._raw_stale = False
        try:
            self._raw_text = json.dumps(self._sent(), indent=2, ensure_ascii=False)
        except Exception as exc:
            return f"Cannot build the body: {exc}"
        return None

    # ---- fields --------------------------------------------------------------------------
    def _text(self, placeholder: str, height: int = 70) -> QPlainTextEdit:
        edit = QPlainTextEdit()
        edit.setPlaceholderText(placeholder)
        edit.setMinimumHeight(height)
        edit.setTabChangesFocus(True)
        edit.textChanged.connect(self._form_edited)
        return edit

    def make_prompt(self, placeholder: str, height: int) -> QPlainTextEdit:
        """The route's prompt box, filled with its default prompt (``prompt_box`` hands it out)."""
        self.prompt = self._text(placeholder, height)
        # The media routes start with an example (a first Send shows what the route does); a
        # conversation starts empty, under its placeholder.
        if not route_of(self.route).conversational:
            self.prompt.setPlainText(DEFAULT_PROMPTS[self.route])
        self._prompt_box = self.prompt
        return self.prompt

    def make_system(self, placeholder: str, height: int) -> QPlainTextEdit:
        """The System box (``system_box`` hands it out)."""
        self.system = self._text(placeholder, height)
        self._system_box = self.system
        return self.system

    def _combo(self, items: tuple[str, ...], labels: dict[str, str] | None = None) -> QComboBox:
        combo = QComboBox()
        for item in items:
            combo.addItem((labels or {}).get(item, item or "default"), item)
        combo.currentIndexChanged.connect(self._form_edited)
        return combo

    def _build_fields(self) -> None:
        # Every route's fields from their one declaration each (fields.py); the folded ones go
        # into the Advanced group, built when it first opens.
        folded = [field for field in FIELDS[self.route] if field.folded]
        for field in FIELDS[self.route]:
            if not field.folded:
                self._add_field(field, self.form)
        if folded:

            def build(form: QFormLayout) -> None:
                for field in folded:
                    self._add_field(field, form)

            self.advanced = AdvancedGroup(self.form, build)

    def _add_field(self, field: Field, form: QFormLayout) -> None:
        widget = field.make(self)
        if field.name:
            setattr(self, field.name, widget)  # editor.temperature, editor.voice, ...
            self._widgets[field.name] = widget
        self._fields.append((field, widget))
        shown = field.row(self, widget) if field.row else widget
        if field.place != "form":
            self._place(field.place).layout().addWidget(shown)  # type: ignore[union-attr]
            return
        if field.span:
            form.addRow(shown)
        else:
            form.addRow(field.label, shown)

    def _place(self, place: str) -> QWidget:
        box = self.places.get(place)
        if box is None:
            box = self.places[place] = QWidget()
            layout = QVBoxLayout(box)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.setSpacing(4)
        return box

    def _browse(self) -> None:
        from PySide6.QtWidgets import QFileDialog  # a dialog: its class loads when first used

        path, _ = QFileDialog.getOpenFileName(
            self,
            "Audio to transcribe",
            "",
            "Audio (*.wav *.mp3 *.m4a *.ogg *.flac *.webm);;All files (*)",
        )
        if path:
            self.file.setText(path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self.route == "transcription" and event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        urls = event.mimeData().urls()
        if self.route == "transcription" and urls and urls[0].isLocalFile():
            self.file.setText(urls[0].toLocalFile())
            event.acceptProposedAction()

    # ---- form <-> params --------------------------------------------------------------------
    def set_prompt(self, text: str) -> None:
        prompt = self._prompt_box
        if prompt is not None:
            prompt.setPlainText(text)
        self._form_to_raw()

    def set_file(self, path: str) -> None:
        if self.route == "transcription":
            self.file.setText(path)

    def file_path(self) -> str | None:
        return self.file.text().strip() or None if self.route == "transcription" else None

    def set_model(self, model: str) -> None:
        self.model = model
        self._form_to_raw()

    def params(self) -> RequestParams:
        """What the form says (the raw view's unknown keys ride along in ``extra``)."""
        p = RequestParams(model=self.model)
        for field, widget in self._fields:  # an unbuilt folded field says "default": not sent
            if field.read is not None:
                field.read(widget, p)
        if self._messages:  # earlier turns from a typed body: the message is the next one
            p.messages = [*copy.deepcopy(self._messages), {"role": "user", "content": p.prompt}]
            p.prompt = None
        p.extra = copy.deepcopy(self._extra)
        return p

    def body(self) -> dict[str, Any]:
        """The body to send: the raw JSON view when it parses (it is the truth), else the form's."""
        try:
            value = safe_json.loads(self._raw_plain())
        except ValueError:
            value = None
        if isinstance(value, dict):  # filled: a body typed with {{name}} in it goes filled in
            return self.variables.filled(value) if self.variables is not None else value
        return self._sent()

    def template_body(self) -> dict[str, Any]:
        """The body with its ``{{name}}`` variables as written (what a preset and the thread
        keep); without variables, ``body()`` itself."""
        if self.variables is None:
            return self.body()
        built = self._built()
        self.variables.fill(built)  # its names now (a pasted body's look may be pending)
        return built if self.variables.names() else self.body()

    def _built(self) -> dict[str, Any]:
        body = build_body(self.route, self.params())
        return self.merge_thread(body) if self.merge_thread is not None else body

    def _sent(self) -> dict[str, Any]:
        """The form's body as it is sent: the variables filled in."""
        body = self._built()
        return self.variables.fill(body) if self.variables is not None else body

    def rebuild(self) -> None:
        """Show the body again from the form (the thread changed)."""
        if self._raw is None:
            self._raw_stale = True  # no view to show it: built when there is, or when read
            if self.variables is not None:
                self.variables.rescan_soon()  # a turn of the thread may use a new variable
            return
        self._form_to_raw()

    def _set_params(self, p: RequestParams) -> None:
        """Show ``p`` in the form without echoing back into the raw view."""
        self._extra = dict(p.extra)
        earlier = show_params(self, p)
        if earlier is not None:
            self._messages = earlier

    # ---- sync -------------------------------------------------------------------------------
    def _form_edited(self, *_args: object) -> None:
        if self._syncing:
            return
        self._form_to_raw()
        self.changed.emit()

    def _form_to_raw(self) -> None:
        # Eager, unlike rebuild(): building the body is what checks the form's fields as they
        # are typed (a schema's note says at once that it is not valid JSON yet).
        try:
            body = self._sent()
        except Exception as exc:  # a bad tools JSON and the like: say so, keep the last body
            self.raw_error.setText(f"Cannot build the body: {exc}")
            return
        text = json.dumps(body, indent=2, ensure_ascii=False)
        if self._raw is None or self._raw_error is None:
            self._raw_text, self._raw_stale = text, False  # no view yet, no error line to clear
            return
        if text != self._raw.toPlainText():
            with QSignalBlocker(self._raw):
                self._raw.setPlainText(text)
        self._raw_error.setText(self._note())

    def _note(self) -> str:
        """What the body built from the form leaves out, and why (tools the list cannot send),
        and the variables it sends as written (no value)."""
        tools = self.tools_list()
        left = tools.left_out_note() if tools is not None and tools.use_tools.isChecked() else ""
        unfilled = self.variables.note.text() if self.variables is not None else ""
        return "\n".join(note for note in (left, unfilled) if note)

    def _on_raw_text(self) -> None:
        if not self._syncing:
            self._raw_timer.start()

    def _raw_edited(self) -> None:
        try:
            value = safe_json.loads(self._raw_plain())
        except ValueError as exc:
            self.raw_error.setText(f"Not valid JSON yet: {exc}")
            return
        if not isinstance(value, dict):
            self.raw_error.setText("The body must be a JSON object.")
            return
        if self._raw_error is not None:
            self._raw_error.clear()
        if self.absorb_thread is not None:
            value = self.absorb_thread(value)
        self._syncing = True
        try:
            blockers = [QSignalBlocker(w) for w in self.findChildren(QWidget) if w is not self._raw]
            self._set_params(params_from_body(self.route, value))
            del blockers
        finally:
            self._syncing = False
        self.changed.emit()

    def set_body(self, body: dict[str, Any]) -> None:
        """Put ``body`` in the raw view and the form (opening a capture, a history entry)."""
        text = json.dumps(body, indent=2, ensure_ascii=False)
        if self._raw is None:
            self._raw_text, self._raw_stale = text, False
        else:
            with QSignalBlocker(self._raw):
                self._raw.setPlainText(text)
        self._raw_edited()

    def flush(self) -> None:
        """Apply a pending raw edit now (Send pressed within the debounce interval)."""
        if self._raw_timer.isActive():
            self._raw_timer.stop()
            self._raw_edited()
