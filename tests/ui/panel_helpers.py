"""A route panel on the session's simulator, shown offscreen, and runs on it sent and awaited;
an event counter for the widgets a test watches."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject

from playground.transport.providers import provider_by_id
from playground.transport.spec import make_spec


def sim_panel(route: str, sim: Any, model: str = "sim-reasoner", pace: str = "fast") -> Any:
    """A ``RoutePanel`` for ``route`` whose requests go to ``sim`` at ``pace``, 1000×700."""
    from playground.ui.panels.route_panel import RoutePanel

    def factory(route: str, body: dict[str, Any], files: Any, headers: dict[str, str]) -> Any:
        return make_spec(
            provider_by_id("simulator"),
            route,
            body,
            None,
            base_url=sim.base_url,
            files=files,
            sim_headers=headers,
        )

    panel = RoutePanel(route, factory)
    give_example_prompt(panel)
    panel.editor.set_model(model)
    panel.set_pace(pace)
    panel.resize(1000, 700)
    panel.show()
    return panel


def then_wait(qloop: Any, panel: Any, action: Callable[[], None] | None = None) -> str:
    """Do ``action`` (by default Send: it starts a run) in the loop; the status the run ended in."""
    start = action or panel.send

    async def go() -> str:
        start()
        await asyncio.sleep(0)
        status: str = await panel.session.wait()
        return status

    status: str = qloop.run(go(), 30)
    qloop.sleep(0.05)  # the finished signal's slots (the thread, the views) have run
    return status


def say(qloop: Any, panel: Any, text: str) -> str:
    """``text`` typed in the prompt box and sent; the status the run ended in."""
    panel.editor.prompt.setPlainText(text)
    return then_wait(qloop, panel)


class EventCounter(QObject):
    """Counts the events of one type that the objects it is installed on receive."""

    def __init__(self, kind: QEvent.Type) -> None:
        super().__init__()
        self.kind = kind
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == self.kind:
            self.count += 1
        return False


def give_example_prompt(panel: Any) -> None:
    """A conversation's empty message box given its route's example: a test's first Send sends
    it, as a headless run without --prompt does."""
    from playground.ui.panels.editor_parts import DEFAULT_PROMPTS

    if panel.conversation is not None and not panel.editor.prompt.toPlainText():
        panel.editor.set_prompt(DEFAULT_PROMPTS[panel.route])


def with_example_prompts(window: Any) -> Any:
    """``window`` with each conversation's message box holding its route's example."""
    for panel in window.panels.values():
        give_example_prompt(panel)
    return window
