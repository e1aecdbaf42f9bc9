"""The Presets menu: a conversational panel's workspace saved as a named preset, opened again,
a new conversation started from one, a preset deleted (the files: playground/runs/presets.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from playground.runs.presets import Preset, PresetInfo
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["Presets"]

NOT_CONVERSATIONAL = "Presets keep a Chat, Responses or Messages panel: open one of them first."


class Presets:
    """The Presets menu's actions and what they do to the window's panels."""

    def __init__(self, window: MainWindow, menu: QMenu, root: Path | None = None) -> None:
        self.window = window
        self.menu = menu
        self.root = root  # the presets folder; None: <data dir>/presets
        self.message = ""  # the last thing said (also on the status bar)
        self.last_name = ""  # the preset last opened or saved: Save as preset… offers it
        self.save_action = QAction("&Save as preset…", window)
        self.save_action.setToolTip(
            "Keep this panel's model, system, thread, tools and parameters under a name"
        )
        self.save_action.triggered.connect(lambda: self.save())
        self.open_menu = QMenu("&Open preset", window)
        self.new_menu = QMenu("&New conversation from preset", window)
        self.delete_menu = QMenu("&Delete preset", window)
        for submenu in (self.open_menu, self.new_menu, self.delete_menu):
            submenu.setToolTipsVisible(True)  # an unreadable file says why
        menu.addAction(self.save_action)
        menu.addSeparator()
        menu.addMenu(self.open_menu)
        menu.addMenu(self.new_menu)
        menu.addSeparator()
        menu.addMenu(self.delete_menu)
        # The folder is read when the menu opens, not at start-up (startup time).
        menu.aboutToShow.connect(self.refresh)

    # ---- the menu -----------------------------------------------------------------------------
    def refresh(self) -> None:
        """List the presets in the three submenus (a file that cannot be read says why)."""
        from playground.runs.presets import list_presets

        self.save_action.setEnabled(self.window.current_panel().conversation is not None)
        found = list_presets(self.root)
        for submenu, slot in (
            (self.open_menu, self.open),
            (self.new_menu, self.new_conversation),
            (self.delete_menu, self.delete),
        ):
            submenu.clear()
            for info in found:
                submenu.addAction(self._entry(submenu, info, slot))
            if not found:
                empty = submenu.addAction("(no presets saved yet)")
                empty.setEnabled(False)
            submenu.setEnabled(True)

    def _entry(self, menu: QMenu, info: PresetInfo, slot: Callable[[str], Any]) -> QAction:
        if info.error:
            action = QAction(f"{info.name} (unreadable)", menu)
            action.setToolTip(info.error)
            action.setEnabled(slot == self.delete)  # a broken file can still be deleted
        else:
            detail = " · ".join(x for x in (_title(info.route), info.model) if x)
            action = QAction(f"{info.name}\t{detail}", menu)
        action.triggered.connect(lambda _c=False, n=info.name: slot(n))
        return action

    def _say(self, message: str) -> None:
        self.message = message
        self.window.statusBar().showMessage(message, 8000)

    # ---- saving -------------------------------------------------------------------------------
    def snapshot(self, panel: RoutePanel, name: str) -> Preset:
        """``panel``'s workspace now: the body it would send (thread, prompt, tools, parameters)
        and the canned tool results, which are never sent."""
        from playground.protocol.conversation.model import Conversation
        from playground.runs.presets import Preset, thread_keys

        editor = panel.editor
        editor.flush()  # a JSON body typed a moment ago is the body
        thread = panel.conversation
        canned = dict(thread.auto_results) if thread is not None else {}
        canned |= editor.tools.canned_results()
        body = editor.template_body()  # its {{variables}} as written, their values beside it
        system = editor.system_box()
        return Preset(
            name=name,
            route=panel.route,
            body=body,
            model=str(body.get("model") or editor.model),
            system=(system.toPlainText() or None) if system is not None else None,
            canned=canned,
            auto_reply=editor.tools.auto_reply.isChecked(),
            thread=None
            if thread is None
            else thread_keys(panel.route, Conversation(tuple(thread.turns))),
            variables=editor.variables.values() if editor.variables is not None else {},
        )

    def save(self, name: str | None = None) -> Path | None:
        """Save the current panel as preset ``name`` (asked for when None and interactive)."""
        from playground.runs.presets import PresetError, find_preset, save_preset

        panel = self.window.current_panel()
        if panel.conversation is None:
            self._say(NOT_CONVERSATIONAL)
            return None
        if name is None:
            if not self.window.interactive:
                return None
            # Dialogs: their classes load when first used (startup time).
            from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox

            name, ok = QInputDialog.getText(
                self.window,
                "Save as preset",
                "Preset name:",
                QLineEdit.EchoMode.Normal,
                self.last_name,
            )
            if not ok:
                return None
            try:
                find_preset(name, self.root)
            except PresetError:
                pass  # a new name
            else:
                answer = QMessageBox.question(
                    self.window, "Replace the preset?", f"Replace the preset “{name.strip()}”?"
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return None
        try:
            path = save_preset(self.snapshot(panel, name), self.root)
        except PresetError as exc:
            self._say(str(exc))
            return None
        self.last_name = " ".join(name.split())
        self._say(f"Saved the preset “{self.last_name}”.")
        return path

    # ---- opening ------------------------------------------------------------------------------
    def _load(self, name: str) -> Preset | None:
        from playground.runs.presets import PresetError, find_preset

        try:
            preset = find_preset(name, self.root)
        except PresetError as exc:
            self._say(str(exc))
            return None
        if preset.route not in self.window.provider_bar.provider().routes:
            self._say(f"The provider has no {_title(preset.route)} route for the preset “{name}”.")
            return None
        return preset

    def open(self, name: str) -> RoutePanel | None:
        """Switch to the preset's panel and put back its model, body and thread."""
        preset = self._load(name)
        if preset is None:
            return None
        panel = self._fill(preset, preset.body)
        self.last_name = preset.name
        from playground.runs.presets import thread_of

        kept = thread_of(preset)
        if kept is not None and panel.conversation is not None:
            # The thread as it was shown (chat's reasoning, which no chat body carries).
            panel.conversation.restore(list(kept.turns))
        self._say(f"Opened the preset “{preset.name}”.")
        return panel

    def new_conversation(self, name: str) -> RoutePanel | None:
        """The preset's panel with its system, tools and parameters, and no thread."""
        from playground.runs.presets import new_conversation_body

        preset = self._load(name)
        if preset is None:
            return None
        panel = self._fill(preset, new_conversation_body(preset))
        self._say(f"A new conversation from the preset “{preset.name}”.")
        return panel

    def _fill(self, preset: Preset, body: dict[str, Any]) -> RoutePanel:
        window = self.window
        panel = window.show_panel(preset.route)
        if panel.session.is_running:
            panel.stop()  # its answer must not land in the preset's thread
        if preset.model:
            window.provider_bar.set_model(preset.model)  # the Model box shows what is sent
            panel.editor.set_model(preset.model)
        thread = panel.conversation
        if thread is not None:
            # The canned results go back to the Tools list (below), not to the thread's
            # --tool-result answers: those answer every call at once, whatever Auto-reply says.
            thread.auto_results = {}
        if panel.editor.variables is not None:
            panel.editor.variables.set_values(preset.variables)
        panel.editor.set_body(body)  # the body's turns before the prompt become the thread
        panel.editor.tools.put_canned(dict(preset.canned), preset.auto_reply)
        if thread is not None:
            thread.refresh()  # result editors still open are prefilled from the list
        return panel

    # ---- deleting -----------------------------------------------------------------------------
    def delete(self, name: str) -> bool:
        from playground.runs.presets import delete_preset

        if self.window.interactive:
            from PySide6.QtWidgets import QMessageBox

            answer = QMessageBox.question(
                self.window, "Delete the preset?", f"Delete the preset “{name}”?"
            )
            if answer != QMessageBox.StandardButton.Yes:
                return False
        gone = delete_preset(name, self.root)
        self._say(f"Deleted the preset “{name}”." if gone else f"There is no preset “{name}”.")
        return gone


def _title(route: str) -> str:
    # Imported here: the menu is made before the first frame, the conversation model with it
    # was ~6-11 ms of the time to that frame (its frozen dataclasses), needed once a preset lists.
    from playground.protocol.conversation.bodies import CONVERSATION_ROUTES
    from playground.protocol.requests import route_spec

    return route_spec(route).title if route in CONVERSATION_ROUTES else route
