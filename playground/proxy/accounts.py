"""Each proxied exchange's cache and cost: the request compared with the previous exchange of
the same client, route and model, its usage priced from the upstream's /v1/models or the price
file.

A client is told apart by its User-Agent and a digest of the key it sends (never the key
itself). The upstream's models list is learnt from any ``GET …/models`` that passes through, and
once at start (``load_models``), so a gateway's cache lifetime, minimum and prices are known.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Final

from playground.protocol.accounting.ledger import Accounted, Ledger
from playground.protocol.accounting.models_meta import models_info
from playground.protocol.accounting.prices import PriceTable
from playground.protocol.safe_json import loads_or
from playground.protocol.stream import StreamDecoder
from playground.proxy.exchange import Exchange, Listener

__all__ = ["CACHED_ROUTES", "ExchangeAccounts"]

CACHED_ROUTES: Final = frozenset({"chat", "responses", "messages"})
MODELS_BODY_MAX: Final = 8 << 20  # a models list is read up to 8 MiB (OpenRouter's is ~1 MiB)
LAST_KEPT: Final = 256  # clients x routes x models whose last request body is kept to compare
REQUEST_BODY_MAX: Final = 32 << 20  # a bigger request body is not compared (none is a prompt)
ACCOUNTED_KEPT: Final = 500  # the last exchanges' objects, for a window's Traffic list


def client_of(ex: Exchange) -> str:
    """Who sent ``ex``: its User-Agent and a digest of its credentials."""
    agent = next((v for k, v in ex.request_headers if k.lower() == "user-agent"), "")
    digest = hashlib.sha256("\x1f".join(ex.secrets).encode("utf-8", "replace")).hexdigest()
    return f"{agent[:200]}#{digest[:12]}"


class ExchangeAccounts(Listener):
    """Learns the models list passing through; ``account`` gives an ended exchange's objects."""

    def __init__(self, prices: PriceTable | None = None) -> None:
        self.ledger = Ledger(prices=dict(prices or {}), max_keys=LAST_KEPT)
        self._models_bodies: dict[int, bytearray] = {}
        self._lock = threading.Lock()
        # Each ended exchange's objects by its id (the line has their JSON): a window's Traffic
        # list shows them with the divergence's both sides and the cost's arithmetic.
        self._accounted: OrderedDict[int, Accounted] = OrderedDict()

    # ---- the upstream's /v1/models -----------------------------------------------------------
    def learn_models(self, payload: object) -> None:
        found = models_info(payload)
        if found:
            with self._lock:
                self.ledger.models = found

    def load_models(self, upstream: str, timeout: float = 3.0) -> None:
        """GET ``upstream``/models once, without any key (a gateway that wants one is learnt from
        a client's own request later); any failure leaves the vendor defaults."""
        import httpx

        try:
            response = httpx.get(upstream.rstrip("/") + "/models", timeout=timeout)
            if response.status_code == 200 and len(response.content) <= MODELS_BODY_MAX:
                self.learn_models(loads_or(response.content, None))
        except (httpx.HTTPError, OSError):
            pass

    def on_response(self, ex: Exchange) -> None:
        listing = ex.method == "GET" and ex.path.split("?")[0].rstrip("/").endswith("/models")
        if listing and ex.http_status == 200:
            self._models_bodies[ex.id] = bytearray()

    def on_chunk(self, ex: Exchange, t: float, data: bytes) -> None:
        body = self._models_bodies.get(ex.id)
        if body is not None:
            if len(body) + len(data) > MODELS_BODY_MAX:
                del self._models_bodies[ex.id]
            else:
                body += data

    def on_end(self, ex: Exchange) -> None:
        body = self._models_bodies.pop(ex.id, None)
        if body is not None and ex.outcome == "done":
            self.learn_models(loads_or(bytes(body), None))

    # ---- an ended exchange ---------------------------------------------------------------------
    def account(self, ex: Exchange, decoder: StreamDecoder | None) -> dict[str, Any]:
        """``{"cache": {...} | None, "cost": {...} | None}`` for the exchange's line."""
        none: dict[str, Any] = {"cache": None, "cost": None}
        if decoder is None or ex.route is None or (ex.http_status or 0) >= 400:
            return none
        raw = ex.request_body
        body = loads_or(raw, None) if raw is not None and len(raw) <= REQUEST_BODY_MAX else None
        if not isinstance(body, dict):
            body = {}
        model = body.get("model") if isinstance(body.get("model"), str) else ""
        images = sum(1 for image in decoder.state.images if image.final)
        key = f"{client_of(ex)}\x1f{ex.route}\x1f{model}"
        with self._lock:
            done = self.ledger.account(
                key, ex.route, body, ex.t0, decoder.state.usage, images=images
            )
            self._accounted[ex.id] = done
            while len(self._accounted) > ACCOUNTED_KEPT:
                self._accounted.popitem(last=False)
        out = done.to_json()
        if ex.route not in CACHED_ROUTES:
            out["cache"] = None  # no prompt cache on the media routes; the cost stands
        return out

    def accounted(self, exchange_id: int) -> Accounted | None:
        """An ended exchange's objects (None: not accounted, or long gone): the same the line's
        ``cache`` and ``cost`` were written from."""
        with self._lock:
            return self._accounted.get(exchange_id)
