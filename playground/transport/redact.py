"""Redaction of credentials in headers and text: what every inspector, file and export shows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["REDACTED", "SECRET_HEADERS", "redact_headers", "redact_pairs", "scrub"]

REDACTED = "[redacted]"
# Headers that carry credentials (Authorization and x-api-key show as redacted everywhere).
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "x-api-key",
        "api-key",
        "proxy-authorization",
        "cookie",
        "set-cookie",  # a session cookie the server hands out is a credential too
        "x-goog-api-key",
    }
)


def _redact_value(name: str, value: str) -> str:
    if name.lower() not in SECRET_HEADERS:
        return value
    scheme, _, rest = value.partition(" ")
    # Keep the scheme ("Bearer") so a reader can still tell the auth style apart.
    if rest and scheme.lower() in ("bearer", "basic", "token"):
        return f"{scheme} {REDACTED}"
    return REDACTED


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``headers`` with credential values replaced by [redacted]."""
    return {name: _redact_value(name, value) for name, value in headers.items()}


def redact_pairs(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The same for a list of (name, value) pairs (response headers keep their order)."""
    return [(name, _redact_value(name, value)) for name, value in headers]


def scrub(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each secret (at least 4 chars) replaced by [redacted]."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return text
