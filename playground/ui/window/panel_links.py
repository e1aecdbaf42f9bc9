"""What ties a built route panel to the window: the selection and the inspector follow its items
and findings, the provider bar shows the model its body names, its thread is carried elsewhere
and kept as it changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playground.protocol.conversation.model import Conversation
    from playground.ui.panels.route_panel import RoutePanel
    from playground.ui.window.shell import MainWindow

__all__ = ["wire_panel"]


def wire_panel(window: MainWindow, panel: RoutePanel) -> None:
    """Connect ``panel``'s signals to the window's parts (once, when the panel is built)."""
    window.current_run.watch(panel.session)
    panel.itemActivated.connect(lambda item, p=panel: _widget_activated(window, p, item))
    panel.status_line.warningsClicked.connect(lambda p=panel: _show_findings(window, p))
    panel.session.started.connect(lambda *_: _clear_ready(window))
    panel.editor.modelChanged.connect(lambda m, r=panel.route: window.provider_bar.show_sent(r, m))
    if panel.conversation is not None:
        panel.conversation.carryRequested.connect(
            lambda target, conversation, prompt: _carry(window, target, conversation, prompt)
        )
        window.kept.attach(panel)  # saved as it changes (ui/window/kept.py)


def _carry(window: MainWindow, target: str, conversation: Conversation, prompt: str) -> None:
    """A thread's Send to: into Compare's columns, or into ``target``'s panel, in front."""
    from playground.ui.conversation.thread_edit import COMPARE

    if target == COMPARE:
        window.compare.open_thread(conversation, prompt)
    elif (other := window.show_panel(target)).conversation is not None:
        other.conversation.editing.receive(conversation, prompt)


def _clear_ready(window: MainWindow) -> None:
    # "Ready … Type a prompt" under a run's output (a failure's, say) would read as idle.
    if window.statusBar().currentMessage().startswith("Ready"):
        window.statusBar().clearMessage()


def _show_findings(window: MainWindow, panel: RoutePanel) -> None:
    """ "complete · N warnings" was clicked: the inspector goes to the first finding."""
    if panel is not window.followed:
        window.tabs.setCurrentWidget(panel)
    window.inspector.highlight_findings()


def _widget_activated(window: MainWindow, panel: RoutePanel, item: int) -> None:
    if panel is not window.followed:
        window.tabs.setCurrentWidget(panel)
    window.selection.widget_activated(item, source=panel.activated_by)
