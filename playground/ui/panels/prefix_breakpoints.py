"""Cache breakpoints on the system prompt and the tools of a messages request: two switches that
put Anthropic's ``cache_control`` on the system's last block and on the last tool of the body the
form builds, and that a pasted body's own breakpoints there turn on (the turns' breakpoints are
the thread's: ui/conversation/cache_marks.py)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

if TYPE_CHECKING:
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["PrefixBreakpoints", "with_prefix_breakpoints"]

Body = dict[str, Any]


def with_prefix_breakpoints(body: Body, *, system: bool, tools: bool) -> Body:
    """``body`` with a breakpoint on its system's last block and/or its last tool (a system
    string becomes one text block: only a block carries ``cache_control``)."""
    from playground.protocol.conversation.messages import cache_control

    out = dict(body)
    text = out.get("system")
    if system and isinstance(text, str) and text:
        out["system"] = [{"type": "text", "text": text, "cache_control": cache_control("5m")}]
    elif system and isinstance(text, list) and text and isinstance(text[-1], dict):
        out["system"] = [*text[:-1], {**text[-1], "cache_control": cache_control("5m")}]
    listed = out.get("tools")
    if tools and isinstance(listed, list) and listed and isinstance(listed[-1], dict):
        out["tools"] = [*listed[:-1], {**listed[-1], "cache_control": cache_control("5m")}]
    return out


def _marked(body: Body) -> tuple[bool, bool]:
    """Whether a body's system and its tools carry a breakpoint."""
    from playground.protocol.conversation.messages import breakpoint_of

    system, tools = body.get("system"), body.get("tools")
    on_system = isinstance(system, list) and any(breakpoint_of(b) for b in system)
    on_tools = isinstance(tools, list) and any(breakpoint_of(t) for t in tools)
    return on_system, on_tools


class PrefixBreakpoints(QWidget):
    """The switches "Cache breakpoint on: system, tools" of one messages panel."""

    def __init__(self, panel: RoutePanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("prefixBreakpoints")
        self._panel = weakref.ref(panel)  # weak: no cycle through the panel (thread.py)
        me = weakref.ref(self)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Cache breakpoint on:"))
        self.system = QCheckBox("system")
        self.tools = QCheckBox("tools")
        for box, where in ((self.system, "system prompt"), (self.tools, "tool list")):
            box.setToolTip(
                f'cache_control: {{"type": "ephemeral"}} on the {where}: the prompt up to its '
                "end is cached (Anthropic: tools, then system, then messages)"
            )
            box.toggled.connect(self._toggled)
            layout.addWidget(box)
        layout.addStretch(1)
        editor = panel.editor
        merge: Callable[[Body], Body] | None = editor.merge_thread
        absorb: Callable[[Body], Body] | None = editor.absorb_thread

        def merged(body: Body) -> Body:
            body = merge(body) if merge is not None else body
            switches = me()
            if switches is None:
                return body
            return with_prefix_breakpoints(
                body, system=switches.system.isChecked(), tools=switches.tools.isChecked()
            )

        def absorbed(body: Body) -> Body:
            switches = me()
            if switches is not None:
                on_system, on_tools = _marked(body)
                for box, on in ((switches.system, on_system), (switches.tools, on_tools)):
                    with QSignalBlocker(box):
                        box.setChecked(on)
            return absorb(body) if absorb is not None else body

        editor.merge_thread = merged
        editor.absorb_thread = absorbed

    def _toggled(self, _on: bool) -> None:
        panel = self._panel()
        if panel is not None:
            panel.editor.rebuild()
            panel.editor.changed.emit()
