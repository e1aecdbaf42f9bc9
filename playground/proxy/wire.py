"""What crosses the proxy: the headers forwarded or dropped, the upstream URL, a path's route."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final
from urllib.parse import urlsplit

from playground.protocol.redaction import REDACTED, redact_pairs, redact_url, secrets_of
from playground.protocol.routes import route_for_path

__all__ = [
    "BASE_PATH",
    "hop_by_hop",
    "redact",
    "redact_query",
    "request_headers",
    "response_headers",
    "route_of",
    "secrets_of",
    "upstream_url",
    "valid_upstream",
]

BASE_PATH: Final = "/v1"

# RFC 9110 §7.6.1: connection-specific headers are not forwarded by a proxy, nor any header the
# Connection header names. Transfer-Encoding is the hop's framing: uvicorn frames its own hop.
_HOP_BY_HOP: Final = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
# Set by the proxy's own client for the upstream hop (the length of the body it sends, the host it
# connects to), and Accept-Encoding: identity, as the playground's own client asks (transport/
# client.py): the bytes the decoder, the capture and the client see are the bytes the server
# wrote, and no compressor holds a chunk back waiting for more.
_REQUEST_OWN: Final = frozenset({"host", "content-length", "accept-encoding"})
# Header names the proxy shows as [redacted] besides those the redaction rule names: anthropic-*
# are kept out of everything kept or shown, as Authorization and x-api-key are.
_REDACTED_PREFIXES: Final = ("anthropic-",)


def hop_by_hop(headers: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The lower-case names not to forward: the fixed set and those the Connection header lists."""
    named = {
        token.strip().lower()
        for name, value in headers
        if name.lower() == "connection"
        for token in value.split(",")
        if token.strip()
    }
    return _HOP_BY_HOP | named


def request_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The client's headers as they go upstream: credentials unchanged, hop-by-hop dropped."""
    drop = hop_by_hop(headers) | _REQUEST_OWN
    out = [(name, value) for name, value in headers if name.lower() not in drop]
    out.append(("Accept-Encoding", "identity"))
    return out


def response_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The upstream's headers as they go to the client: all but the hop-by-hop ones, in order."""
    drop = hop_by_hop(headers)
    return [(name, value) for name, value in headers if name.lower() not in drop]


def redact(
    headers: Iterable[tuple[str, str]], secrets: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """Headers as the proxy keeps or shows them: credentials and anthropic-* as [redacted], and
    the client's key (``secrets``) scrubbed from every other value."""
    return [
        (name, REDACTED if name.lower().startswith(_REDACTED_PREFIXES) else value)
        for name, value in redact_pairs(headers, secrets)
    ]


def redact_query(url: str) -> str:
    """``url`` with the values of credential query parameters as [redacted] (what is kept or
    shown): the one redaction rule's ``redact_url``."""
    return redact_url(url)


def valid_upstream(url: str) -> str | None:
    """Why ``url`` cannot be an upstream base URL, or None when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"not an http or https URL: {url!r}"
    if parts.query or parts.fragment:
        return f"an upstream base URL has no query or fragment: {url!r}"
    return None


def upstream_url(upstream: str, path: str, query: bytes) -> str:
    """Where a request for ``path`` (under the base path) goes: the upstream base URL + the rest."""
    rest = path[len(BASE_PATH) :]
    url = upstream.rstrip("/") + rest
    return f"{url}?{query.decode('latin-1')}" if query else url


def route_of(method: str, path: str) -> str | None:
    """The playground route a request is for (None: a route it knows no grammar of).

    The route registry says which paths each route serves (``other_paths`` included).
    """
    rest = path[len(BASE_PATH) :] if path.startswith(BASE_PATH) else path
    return route_for_path(method, rest)
