"""A panel's cache, cost and context parts put in place: the status line's cost and cache, each
answer's figures and the conversation's total (a conversational panel), and the context gauge
and cache warning under a transcript's message box.

Each part reads the panel (its editor's body, its thread, its session) and what the gateway
says of its models through callables given here; by default they read the window's provider
bar, found by duck typing (no import of the window), and the data folder's price file.
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QVBoxLayout, QWidget

from playground.ui.runtime.price_table import current_prices

if TYPE_CHECKING:
    from playground.protocol.accounting.models_meta import ModelInfo
    from playground.ui.conversation.turn_costs import ModelsSource, PricesSource
    from playground.ui.panels.context_gauge import Counter, ModelSource
    from playground.ui.panels.route_panel import RoutePanel

__all__ = ["ContextParts", "attach_context_parts"]


class ContextParts(QWidget):
    """The gauge and the warning, one above the other, in a transcript's composer."""

    def __init__(self, panel: RoutePanel, model: ModelSource, counter: Counter | None) -> None:
        from playground.ui.panels.cache_warning import CacheWarning
        from playground.ui.panels.context_gauge import ContextGauge

        super().__init__()
        self.setObjectName("contextParts")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(2)
        self.warning = CacheWarning(panel, model)
        self.gauge = ContextGauge(panel, model, counter)
        self.breakpoints = None
        if panel.route == "messages":
            from playground.ui.panels.prefix_breakpoints import PrefixBreakpoints

            self.breakpoints = PrefixBreakpoints(panel)
            layout.addWidget(self.breakpoints)
        layout.addWidget(self.warning)
        layout.addWidget(self.gauge)


def _bar(panel_ref: weakref.ref[RoutePanel]) -> Any:
    """The window's provider bar (duck-typed), through a weak reference: these sources are held
    by the panel's parts, and a Python cycle through a panel crashes PySide (thread.py)."""
    panel = panel_ref()
    return getattr(panel.window(), "provider_bar", None) if panel is not None else None


def window_models(panel: RoutePanel) -> ModelsSource:
    """What the window's last /v1/models said of each model (empty before it came)."""

    ref = weakref.ref(panel)

    def models() -> dict[str, ModelInfo]:
        found = getattr(_bar(ref), "model_info", None)
        return found if isinstance(found, dict) else {}

    return models


def window_model(panel: RoutePanel) -> ModelSource:
    """The panel's route's model on the window's provider, and what /v1/models says of it."""

    ref, route = weakref.ref(panel), panel.route

    def model() -> tuple[str, ModelInfo | None]:
        bar = _bar(ref)
        if bar is None:
            return "", None
        name = str(bar.model_for(route))
        info = getattr(bar, "model_info", {}).get(name)
        return name, info

    return model


def window_counter(panel: RoutePanel) -> Counter:
    """The window's provider's counting endpoint for the body (None: none, no provider, or a
    key that would travel unencrypted: a count is never worth that). Where to ask is read from
    the provider bar now, on the UI thread; the awaitable only talks to the network."""
    ref = weakref.ref(panel)

    def count(route: str, body: dict[str, Any]) -> Awaitable[int | None]:
        from playground.transport.secrets import get_key
        from playground.transport.spec import key_travels_unencrypted, make_spec

        bar = _bar(ref)
        provider = bar.provider() if bar is not None else None
        base = bar.base_url() if bar is not None else ""
        headers: dict[str, str] | None = None
        if provider is not None and base and route in provider.routes:
            key = None if provider.builtin else get_key(provider)
            spec = make_spec(provider, route, body, key, base_url=base)
            if spec is not None and not key_travels_unencrypted(spec):
                headers = {k: v for k, v in spec.headers.items() if k.lower() != "accept"}
        return _count(base, headers, route, body)

    return count


async def _count(
    base: str, headers: dict[str, str] | None, route: str, body: dict[str, Any]
) -> int | None:
    if headers is None:
        return None
    import httpx

    from playground.transport.counting import count_input_tokens

    async with httpx.AsyncClient() as client:
        return await count_input_tokens(client, base, headers, route, body)


def attach_context_parts(
    panel: RoutePanel,
    *,
    model: ModelSource | None = None,
    models: ModelsSource | None = None,
    prices: PricesSource | None = None,
    counter: Counter | None = None,
) -> ContextParts | None:
    """Put the cache, cost and context parts on ``panel``; its gauge and warning (under a
    conversational panel's message box), else None. Called once, as the panel is built."""
    from playground.ui.panels.run_accounts import RunAccounts

    models = models or window_models(panel)
    prices = prices or current_prices
    turns = None
    thread = panel.conversation
    if thread is not None:
        from playground.ui.conversation.turn_costs import TurnCosts

        turns = TurnCosts(thread, models, prices)
        if panel.route == "messages":  # Anthropic's cache_control, set from the thread
            from playground.ui.conversation.cache_marks import CacheMarks

            panel.cache_marks = CacheMarks(thread)  # type: ignore[attr-defined]
    panel.run_accounts = RunAccounts(panel, models, prices, turns)  # type: ignore[attr-defined]
    if panel.transcript is None:  # no composer to hold them: a media panel
        return None
    parts = ContextParts(panel, model or window_model(panel), counter or window_counter(panel))
    panel.transcript.add_to_composer(parts)  # under the message box, as the consoles show it
    panel.context_parts = parts  # type: ignore[attr-defined]
    return parts
