"""Each answer's cache and cost under its turn, and the conversation's running total.

The thread's requests and their facts (thread.py: when each went, the usage its answer
reported) are accounted as the headless dump accounts them (protocol/accounting/ledger.py
``account_requests``): each against the one before it. A request's answer is the assistant turn
that follows the turns it sent, so each figures line goes on that turn's block. The summary line
adds the total of the requests since the conversation began ("New conversation" starts again).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QLabel

from playground.ui.conversation.pending_turns import unbuilt
from playground.ui.kit.account_words import cache_figure, cache_tip, cost_figure, cost_tip, money
from playground.ui.kit.theme import tint

if TYPE_CHECKING:
    from playground.protocol.accounting.ledger import Accounted, Ledger
    from playground.protocol.accounting.models_meta import ModelInfo
    from playground.protocol.accounting.prices import PriceTable
    from playground.ui.conversation.thread import ConversationThread
    from playground.ui.conversation.turn_block import TurnBlock

__all__ = ["TurnCosts", "answer_turn", "figures_of", "sent_roles", "total_text"]

ModelsSource = Callable[[], "dict[str, ModelInfo]"]
PricesSource = Callable[[], "PriceTable"]


def sent_roles(route: str, body: Any) -> tuple[str, ...] | None:
    """The roles of the turns a request sent (None: a body the thread cannot read)."""
    from playground.protocol.conversation.bodies import parse_body

    try:
        return tuple(t.role for t in parse_body(body, route).conversation.turns)
    except Exception:  # a body the thread never sent as it is: no turn answers it
        return None


def answer_turn(sent: tuple[str, ...] | None, roles: Sequence[str]) -> int | None:
    """The index in a thread whose turns have ``roles`` of the answer to a request that sent
    turns of the roles ``sent``: the turn after them, when the thread still starts with them
    and that turn answers."""
    if sent is None:
        return None
    n = len(sent)
    if n >= len(roles) or roles[n] != "assistant" or tuple(roles[:n]) != sent:
        return None
    return n


def figures_of(done: Accounted) -> tuple[str, str]:
    """A turn's figures line and its tooltip: the cache, then the cost."""
    cost = cost_figure(done.cost)
    cost = f"cost {cost}" if cost.startswith("$") else cost
    text = " · ".join(s for s in (cache_figure(done.cache), cost) if s)
    return text, cache_tip(done.cache) + "\n\n" + cost_tip(done.cost)


def total_text(accounts: list[Accounted]) -> tuple[str, str]:
    """The running total of ``accounts`` ("" when none) and its tooltip."""
    if not accounts:
        return "", ""
    if any(done.cost is None for done in accounts):
        unknown = sum(1 for done in accounts if done.cost is None)
        return "cost unknown", (
            f"{unknown} of {len(accounts)} requests have no known price (or reported no usage)."
        )
    costs = [done.cost for done in accounts if done.cost is not None]
    total = sum(c.total for c in costs)
    currency = costs[0].currency
    lines = [f"request {i + 1}: {money(c.total, c.currency)}" for i, c in enumerate(costs)]
    return money(total, currency), "\n".join(
        [f"The conversation so far: {money(total, currency)}", *lines]
    )


class TurnCosts(QObject):
    """Keeps the figures lines of a thread's answers and its summary's total up to date."""

    def __init__(
        self, thread: ConversationThread, models: ModelsSource, prices: PricesSource
    ) -> None:
        super().__init__(thread)
        self._thread = weakref.ref(thread)
        self.models = models
        self.prices = prices
        self.first = 0  # the first request of the conversation the total counts
        self.accounts: list[Accounted] = []  # one per ended request, in order
        self._roles: list[tuple[str, ...] | None] = []  # each request's sent roles, read once
        self._ledger: Ledger | None = None
        self._sources: tuple[int, int] = (0, 0)  # which models and prices the ledger has
        self._suffix = ""  # what this adds to the thread view's summary
        self._open = False  # a run is on: the last request's answer has not ended
        self._soon = False  # a refresh is due after this frame's paint (refresh_soon)
        # Each account's figures line and tip, by the account (its identity): a refresh puts
        # every answer's line again, and writing them all anew was most of its time.
        self._figures: dict[int, tuple[Accounted, tuple[str, str]]] = {}
        # Each answer's account by its turn's index, as the last refresh found them: a far turn
        # built later (pending_turns.py) gets its line from it.
        self._by_turn: dict[int, Accounted] = {}
        thread.changed.connect(self.refresh_soon)
        thread.view.farBuilt.connect(self._built)
        thread.replaced.connect(self._new_conversation)
        thread.panel.session.started.connect(self._started)
        thread.panel.session.finished.connect(self._ended)

    def _started(self) -> None:
        self._open = True

    def _ended(self, *_args: object) -> None:
        self._open = False
        # Outside a frame (a run that ended before its stream did), after the other slots of
        # its end: the thread records the answer's usage in its own.
        if not self._put_off():
            QTimer.singleShot(0, self.refresh)

    def refresh_soon(self, *_args: object) -> None:
        """Refresh now, or inside a frame after its paint (``_put_off``)."""
        if not self._put_off():
            self.refresh()

    def _put_off(self) -> bool:
        """Inside a frame, a refresh after its paint in a turn of its own, the asks of one frame
        refreshing once: a run's end asked twice (the thread changed, the run ended), and each
        refresh of a 50-answer conversation cost its last frame 3-4 ms (the session
        benchmark). Not a zero timer: a frame runs Qt's timers before it paints. False outside
        a frame."""
        from playground.ui.runtime.frames import after_paint

        if self._soon:
            return True
        if after_paint(self._refresh_due):
            self._soon = True
            return True
        return False

    def _refresh_due(self) -> None:
        self._soon = False
        self.refresh()

    def _new_conversation(self) -> None:
        thread = self._thread()
        if thread is not None:
            self.first = len(thread.requests)

    def _account(self, thread: ConversationThread) -> list[Accounted]:
        """The ended requests accounted; only new ones are, unless the prices or the models
        changed (then every request again, as the dump would)."""
        from playground.protocol.accounting.ledger import Ledger, account_requests

        models, prices = self.models(), self.prices()
        sources = (id(models), id(prices))
        shrunk = len(thread.requests) < len(self.accounts)  # requests are only ever added
        if self._ledger is None or sources != self._sources or shrunk:
            self._ledger = Ledger(models=dict(models), prices=dict(prices))
            self._sources = sources
            self.accounts = []
            self._roles = []
            self._figures = {}
        requests, facts = thread.requests, thread.request_facts
        ended = len(requests)
        if ended and self._open:
            ended -= 1  # the last one's answer is on its way: no usage yet
        start = len(self.accounts)
        if ended > start:
            self.accounts += account_requests(
                self._ledger, thread.route, requests[start:ended], facts[start:ended]
            )
        return self.accounts

    def refresh(self, *_args: object) -> None:
        thread = self._thread()
        if thread is None:
            return
        accounts = self._account(thread)
        by_turn: dict[int, Accounted] = {}
        for request in thread.requests[len(self._roles) :]:
            self._roles.append(sent_roles(thread.route, request.get("body")))
        roles = [t.role for t in thread.turns]
        for sent, done in zip(self._roles, accounts, strict=False):
            turn = answer_turn(sent, roles)
            if turn is not None:
                by_turn[turn] = done
        self._by_turn = by_turn
        for block in thread.view.blocks:
            if unbuilt(block):
                continue  # a far turn not built yet: asking it for its figures builds it
            self._built(block)
        self._show_total(thread, accounts[self.first :])

    def _built(self, block: TurnBlock) -> None:
        found = self._by_turn.get(block.index)
        if found is None or block.coming or block.turn.role != "assistant":
            _put(block, "", "")
        else:
            _put(block, *self._figures_of(found))

    def _figures_of(self, done: Accounted) -> tuple[str, str]:
        known = self._figures.get(id(done))
        if known is None or known[0] is not done:
            known = self._figures[id(done)] = (done, figures_of(done))
        return known[1]

    def _show_total(self, thread: ConversationThread, accounts: list[Accounted]) -> None:
        summary = thread.view.summary
        text = summary.text()
        if self._suffix and text.endswith(self._suffix):
            text = text[: -len(self._suffix)]
        total, tip = total_text(accounts)
        self._suffix = f" · {total}" if total and thread.turns else ""
        summary.setText(text + self._suffix)
        summary.setToolTip(tip)


def _put(block: TurnBlock, text: str, tip: str) -> None:
    """``block``'s figures line (made on its first figures; hidden when it has none)."""
    label = block.figures
    if label is None:
        if not text:
            return
        label = QLabel()
        label.setObjectName("turnFigures")
        label.setTextFormat(Qt.TextFormat.PlainText)
        tint(label, pixel_size=11)
        label.setWordWrap(True)
        block.box.addWidget(label)
        block.figures = label
    if label.text() != text:
        label.setText(text)
    label.setToolTip(tip)
    label.setVisible(bool(text))
