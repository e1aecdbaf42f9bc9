"""Each cell's cache and cost: its request against the previous request of the same case and
variant (an earlier repeat), its usage priced from the provider's /v1/models or the price file.

The models list of each base URL is read once per run (with the variant's own headers), so a
gateway's cache lifetime, minimum and prices are used; a list that cannot be had leaves the
vendor defaults and the price file.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

import httpx

from playground.evaluate.outcome import RunOutcome
from playground.protocol.accounting.ledger import Ledger
from playground.protocol.accounting.models_meta import models_info
from playground.protocol.accounting.prices import PriceTable
from playground.protocol.safe_json import loads_or
from playground.transport.spec import RequestSpec

__all__ = ["CellAccounts"]

# The route paths a base URL is followed by (the models list sits beside them).
_PATHS: Final = (
    "/chat/completions",
    "/responses",
    "/messages",
    "/images/generations",
    "/images/edits",
    "/images",
    "/audio/speech",
    "/audio/transcriptions",
    "/music",
)
MODELS_BODY_MAX: Final = 8 << 20


def base_of(url: str) -> str | None:
    path = url.split("?", 1)[0]
    for suffix in _PATHS:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return None


class CellAccounts:
    def __init__(self, prices: PriceTable | None = None) -> None:
        self.ledger = Ledger(prices=dict(prices or {}))
        self._lists: dict[str, asyncio.Task[None]] = {}

    async def _load(self, client: httpx.AsyncClient, base: str, headers: dict[str, str]) -> None:
        try:
            response = await client.get(base + "/models", headers=headers, timeout=10.0)
        except httpx.HTTPError:
            return
        if response.status_code == 200 and len(response.content) <= MODELS_BODY_MAX:
            found = models_info(loads_or(response.content, None))
            self.ledger.models = self.ledger.models | found

    async def models_for(self, client: httpx.AsyncClient, spec: RequestSpec) -> None:
        """Read the models list of ``spec``'s base URL, once per run (later callers wait)."""
        base = base_of(spec.url)
        if base is None:
            return
        task = self._lists.get(base)
        if task is None:
            task = self._lists[base] = asyncio.ensure_future(
                self._load(client, base, dict(spec.headers))
            )
        await asyncio.shield(task)

    def account(self, key: str, route: str, outcome: RunOutcome) -> dict[str, Any]:
        """``{"cache": {...} | None, "cost": {...} | None}`` for the cell's results."""
        if outcome.sent_at is None or outcome.body is None:
            return {"cache": None, "cost": None}
        done = self.ledger.account(
            key, route, outcome.body, outcome.sent_at, outcome.wire_usage, images=outcome.images
        ).to_json()
        if route not in ("chat", "responses", "messages"):
            done["cache"] = None
        return done
