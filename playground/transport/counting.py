"""Ask a gateway's counting endpoint how many input tokens a request holds (None: it has none,
or it did not answer with a count; the caller then shows the offline estimate)."""

from __future__ import annotations

from typing import Any

import httpx

from playground.protocol.accounting.counting import COUNTING_PATHS, counted_tokens, counting_body
from playground.protocol.safe_json import loads_or

__all__ = ["count_input_tokens"]

MAX_ANSWER = 64 * 1024  # a count is a few bytes; anything longer is not one


async def count_input_tokens(
    client: httpx.AsyncClient,
    base_url: str,
    headers: dict[str, str],
    route: str,
    body: dict[str, Any],
    *,
    timeout: float = 10.0,
) -> int | None:
    """POST ``body``'s prompt fields to ``route``'s counting endpoint under ``base_url``."""
    path = COUNTING_PATHS.get(route)
    sent = counting_body(route, body)
    if path is None or sent is None:
        return None
    try:
        response = await client.post(
            base_url.rstrip("/") + path, json=sent, headers=headers, timeout=timeout
        )
    except httpx.HTTPError:
        return None
    if response.status_code != 200 or len(response.content) > MAX_ANSWER:
        return None
    return counted_tokens(loads_or(response.content, None))
