"""The ended run's cost and prompt cache on the panel's status line, as the headless dump
accounts them (ui/panels/dump.py): a conversational panel's run is its thread's last request,
judged against the one before it; another panel's run is priced alone (no prompt cache)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from playground.ui.kit.account_words import cache_figure, cache_tip, cost_figure, cost_tip

if TYPE_CHECKING:
    from playground.protocol.accounting.cost import Cost
    from playground.ui.conversation.turn_costs import ModelsSource, PricesSource, TurnCosts
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["RunAccounts"]


class RunAccounts(QObject):
    """Puts each ended run's cost and cache on ``panel``'s status line."""

    def __init__(
        self,
        panel: RoutePanel,
        models: ModelsSource,
        prices: PricesSource,
        turns: TurnCosts | None = None,
    ) -> None:
        super().__init__(panel)
        # Weak: a Python cycle through a panel and its QObject child, collected in the wrong
        # order, crashes PySide (thread.py says the same of the thread).
        self._panel = weakref.ref(panel)
        self.models = models
        self.prices = prices
        self.turns = turns  # a conversational panel's accounts, kept by its turns' figures
        self._requests_seen = 0
        self._sent_now = False  # the run that started added a request to the thread
        # After the thread's own slots (connected when the panel was built): its request is
        # recorded at the start, its usage at the end.
        panel.session.started.connect(self._started)
        panel.session.finished.connect(self._ended)

    def _started(self) -> None:
        panel = self._panel()
        if panel is None:
            return
        thread = panel.conversation
        count = len(thread.requests) if thread is not None else 0
        self._sent_now = count > self._requests_seen
        self._requests_seen = count

    def _ended(self, *_args: object) -> None:
        from playground.ui.runtime.frames import after_paint

        # After the run's last frame is painted, in a turn of its own: accounting the whole
        # conversation's requests cost that frame ~2.5 ms with 50 answers (the session
        # benchmark), and the figures are read after the run anyway. Not a zero timer: a frame
        # runs Qt's timers before it paints. Outside a frame (a run that ended before its
        # stream did), after the other slots of its end.
        if not after_paint(self.show):
            QTimer.singleShot(0, self.show)

    def show(self, *_args: object) -> None:
        panel = self._panel()
        if panel is None:
            return
        state = panel.session.state
        if state is None:
            return
        if panel.session.run.replay:  # a capture played back: no request of this panel's
            panel.status_line.set_accounts("", "", "", "")
            return
        thread, turns = panel.conversation, self.turns
        if thread is not None and turns is not None and self._sent_now:
            turns.refresh()
            n = len(thread.requests)
            if len(turns.accounts) >= n > 0:
                done = turns.accounts[n - 1]
                reported = state.usage is not None
                self._put(
                    panel, done.cost, reported, cache_figure(done.cache), cache_tip(done.cache)
                )
                return
        self._put(panel, self._run_cost(panel), state.usage is not None, "", "")

    def _run_cost(self, panel: RoutePanel) -> Cost | None:
        """The run priced alone (a retry, a replay, a panel without a conversation)."""
        from playground.protocol.accounting.ledger import account_run

        state, spec = panel.session.state, panel._last_spec
        body = spec.json_body if spec is not None else None
        model = body.get("model") if isinstance(body, dict) else None
        if state is None or not isinstance(model, str):
            return None
        images = sum(1 for image in state.images if image.final)
        return account_run(state.usage, model, self.models(), self.prices(), images=images)

    def _put(
        self, panel: RoutePanel, cost: Cost | None, reported: bool, cache: str, cache_words: str
    ) -> None:
        tip = cost_tip(cost) if reported else "The response reported no usage: nothing to price."
        panel.status_line.set_accounts(cost_figure(cost, known=reported), tip, cache, cache_words)
