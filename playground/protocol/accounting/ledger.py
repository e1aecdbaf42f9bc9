"""Each request of a conversation accounted as it ends: its usage normalised, its cache
explained against the previous request under the same key, and its cost.

The key is the conversation (the window, a headless run, an eval cell) or, through the proxy,
the client, route and model. The ledger keeps only the last request per key, and at most
``MAX_KEYS`` keys (the least recently used go).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from playground.protocol.accounting.cache import CacheVerdict, SentRequest, classify
from playground.protocol.accounting.cache_rules import cache_rules
from playground.protocol.accounting.canonical import canonical_request
from playground.protocol.accounting.cost import Cost, cost_of
from playground.protocol.accounting.models_meta import ModelInfo
from playground.protocol.accounting.prices import ModelPrices, PriceTable
from playground.protocol.accounting.tokens import estimate_context
from playground.protocol.accounting.usage import Usage, usage_from_wire

__all__ = ["Accounted", "Ledger", "account_conversation", "account_requests", "account_run"]

MAX_KEYS = 1000


@dataclass(frozen=True, slots=True)
class Accounted:
    usage: Usage | None
    cache: CacheVerdict
    cost: Cost | None

    def to_json(self) -> dict[str, Any]:
        """``{"cache": {...}, "cost": {...} | None}``: the headless contract's two objects."""
        return {
            "cache": self.cache.to_json(),
            "cost": self.cost.to_json() if self.cost is not None else None,
        }


@dataclass
class Ledger:
    models: dict[str, ModelInfo] = field(default_factory=dict)  # /v1/models, by id
    prices: PriceTable = field(default_factory=dict)  # the price file's table
    max_keys: int = MAX_KEYS  # each key keeps its last request's body: a proxy keeps fewer
    _last: OrderedDict[str, SentRequest] = field(default_factory=OrderedDict)

    def prices_for(self, model: str) -> ModelPrices | None:
        info = self.models.get(model)
        if info is not None and info.prices is not None:
            return info.prices
        return self.prices.get(model)

    def previous(self, key: str) -> SentRequest | None:
        return self._last.get(key)

    def account(
        self,
        key: str,
        route: str,
        body: Any,
        sent_at: float,
        usage: object,
        *,
        images: int = 0,
    ) -> Accounted:
        """The request ``body`` sent at ``sent_at`` (seconds) whose response reported ``usage``
        (the wire object, any route's shape); it becomes the previous request of ``key``."""
        model = body.get("model") if isinstance(body, dict) else None
        model = model if isinstance(model, str) else ""
        normalised = usage_from_wire(usage)
        current = SentRequest(route, body, sent_at, normalised)
        rules = cache_rules(route, self.models.get(model))
        verdict = classify(self._last.get(key), current, rules)
        self._last[key] = current
        self._last.move_to_end(key)
        while len(self._last) > self.max_keys:
            self._last.popitem(last=False)
        return Accounted(
            normalised, verdict, cost_of(normalised, self.prices_for(model), images=images)
        )


def account_conversation(
    route: str,
    requests: list[dict[str, Any]],
    facts: list[dict[str, Any]],
    models: dict[str, ModelInfo] | None = None,
    prices: PriceTable | None = None,
) -> dict[str, Any]:
    """The headless dump's accounts of a conversation: each of ``requests`` (``{"path",
    "body"}``) with its ``cache``, ``cost`` and ``context`` (the offline estimate of its input
    beside the input the provider reported), given ``facts`` beside them (``{"sent_at",
    "usage"}``, the same order); the last request's ``cache`` and ``cost``; and
    ``cost_total``, the conversation's running total (null when any request's price is
    unknown)."""
    ledger = Ledger(models=dict(models or {}), prices=dict(prices or {}))
    out: list[dict[str, Any]] = []
    last: dict[str, Any] = {"cache": None, "cost": None}
    total = 0.0
    currency: str | None = None
    known = bool(requests)
    for request, done in zip(
        requests, account_requests(ledger, route, requests, facts), strict=True
    ):
        last = done.to_json()
        out.append(request | last | {"context": _context(route, request.get("body"), ledger, done)})
        if done.cost is None:
            known = False
        else:
            total += done.cost.total
            currency = done.cost.currency
    return {
        "requests": out,
        **last,
        "cost_total": {"total": total, "currency": currency} if known else None,
    }


def account_requests(
    ledger: Ledger, route: str, requests: list[dict[str, Any]], facts: list[dict[str, Any]]
) -> list[Accounted]:
    """Each of a conversation's ``requests`` (``{"body"}``) accounted in turn under one key,
    with ``facts`` beside them (``{"sent_at", "usage"}``, the same order): the window's turns
    and the headless dump read the same objects."""
    out = []
    for i, request in enumerate(requests):
        fact = facts[i] if i < len(facts) else {}
        sent_at = fact.get("sent_at")
        out.append(
            ledger.account(
                "conversation",
                route,
                request.get("body"),
                float(sent_at) if isinstance(sent_at, int | float) else 0.0,
                fact.get("usage"),
            )
        )
    return out


def _context(route: str, body: Any, ledger: Ledger, done: Accounted) -> dict[str, Any]:
    model = body.get("model") if isinstance(body, dict) else None
    info = ledger.models.get(model) if isinstance(model, str) else None
    window = info.context_window if info is not None else None
    estimate = estimate_context(canonical_request(route, body), window).to_json()
    reported = done.usage.total_input if done.usage is not None else None
    return estimate | {"reported": reported}


def account_run(
    usage: object,
    model: str,
    models: dict[str, ModelInfo] | None = None,
    prices: PriceTable | None = None,
    *,
    images: int = 0,
) -> Cost | None:
    """One run's cost (a panel without a conversation: images, speech, transcription)."""
    ledger = Ledger(models=dict(models or {}), prices=dict(prices or {}))
    return cost_of(usage_from_wire(usage), ledger.prices_for(model), images=images)
